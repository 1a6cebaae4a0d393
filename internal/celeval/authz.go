package celeval

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// The types of Kubernetes' authorizer library.
var (
	authorizerType    = cel.ObjectType("kubernetes.authorization.Authorizer")
	pathCheckType     = cel.ObjectType("kubernetes.authorization.PathCheck")
	groupCheckType    = cel.ObjectType("kubernetes.authorization.GroupCheck")
	resourceCheckType = cel.ObjectType("kubernetes.authorization.ResourceCheck")
	decisionType      = cel.ObjectType("kubernetes.authorization.Decision")
)

// authzSignatures declares the functions of Kubernetes' authorizer library
// (with its field and label selectors) by signature only. kube-apiserver
// declares them in every environment, though only admission expressions
// get an authorizer value to call them on; declaring them makes an
// expression that names one fail to compile with kube-apiserver's message
// (no matching overload rather than an unknown name). No value of these
// types exists here, so the bindings are never called.
func authzSignatures() []cel.EnvOption {
	none := func(args ...ref.Val) ref.Val { return types.NewErr("no authorizer is available") }
	member := func(id string, args []*cel.Type, out *cel.Type) cel.FunctionOpt {
		return cel.MemberOverload(id, args, out, cel.FunctionBinding(none))
	}
	str := cel.StringType
	return []cel.EnvOption{
		cel.Function("path", member("authorizer_path", []*cel.Type{authorizerType, str}, pathCheckType)),
		cel.Function("group", member("authorizer_group", []*cel.Type{authorizerType, str}, groupCheckType)),
		cel.Function("serviceAccount", member("authorizer_serviceaccount", []*cel.Type{authorizerType, str, str}, authorizerType)),
		cel.Function("resource", member("groupcheck_resource", []*cel.Type{groupCheckType, str}, resourceCheckType)),
		cel.Function("subresource", member("resourcecheck_subresource", []*cel.Type{resourceCheckType, str}, resourceCheckType)),
		cel.Function("namespace", member("resourcecheck_namespace", []*cel.Type{resourceCheckType, str}, resourceCheckType)),
		cel.Function("name", member("resourcecheck_name", []*cel.Type{resourceCheckType, str}, resourceCheckType)),
		cel.Function("check",
			member("pathcheck_check", []*cel.Type{pathCheckType, str}, decisionType),
			member("resourcecheck_check", []*cel.Type{resourceCheckType, str}, decisionType)),
		cel.Function("errored", member("decision_errored", []*cel.Type{decisionType}, cel.BoolType)),
		cel.Function("error", member("decision_error", []*cel.Type{decisionType}, str)),
		cel.Function("allowed", member("decision_allowed", []*cel.Type{decisionType}, cel.BoolType)),
		cel.Function("reason", member("decision_reason", []*cel.Type{decisionType}, str)),
		cel.Function("fieldSelector", member("authorizer_fieldselector", []*cel.Type{resourceCheckType, str}, resourceCheckType)),
		cel.Function("labelSelector", member("authorizer_labelselector", []*cel.Type{resourceCheckType, str}, resourceCheckType)),
	}
}
