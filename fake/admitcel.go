package fake

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubego/kubego/internal/celeval"
)

// matchConditionVars are the variables a webhook's matchConditions read.
// kube-apiserver also offers authorizer (authorization checks), which the
// fake does not: a condition using it is refused when the configuration
// is written.
var matchConditionVars = []string{"object", "oldObject", "request"}

// maxMatchExprs bounds the compiled matchConditions a Server keeps.
const maxMatchExprs = 512

// compileMatchConditions compiles the matchConditions of one webhook,
// each once while it is used. Caller holds s.mu.
func (s *Server) compileMatchConditions(mcs []admissionregistrationv1.MatchCondition) ([]*celeval.Expr, error) {
	out := make([]*celeval.Expr, 0, len(mcs))
	for _, mc := range mcs {
		e, ok := s.matchExprs[mc.Expression]
		if !ok {
			var err error
			if e, err = celeval.CompileExpr(mc.Expression, matchConditionVars, celeval.Options{}); err != nil {
				return nil, err
			}
			if s.matchExprs == nil || len(s.matchExprs) >= maxMatchExprs {
				s.matchExprs = map[string]*celeval.Expr{}
			}
			s.matchExprs[mc.Expression] = e
		}
		out = append(out, e)
	}
	return out, nil
}

// matchConditionsAllow evaluates h's matchConditions against a, as
// kube-apiserver does before calling a webhook: false (skip the webhook)
// when one is false; an evaluation error, when none is false, fails the
// write with 403 Forbidden under failurePolicy Fail and skips the webhook
// under Ignore. Caller holds s.mu.
func (s *Server) matchConditionsAllow(h *webhook, a *admission) (bool, error) {
	if len(h.matchConditions) == 0 {
		return true, nil
	}
	exprs, err := s.compileMatchConditions(h.matchConditions)
	if err != nil {
		// The configuration was checked when written; a stored one that no
		// longer compiles follows the failure policy.
		return s.matchConditionFailure(h, a, []error{err})
	}
	vars := map[string]any{"object": orNull(a.obj), "oldObject": orNull(a.old), "request": admissionRequestVars(a)}
	ctx := context.Background()
	if a.req.r != nil {
		ctx = a.req.r.Context()
	}
	var errs []error
	for i, e := range exprs {
		ok, err := e.Eval(ctx, vars)
		if err != nil {
			errs = append(errs, fmt.Errorf("expression '%s' resulted in error: %w", h.matchConditions[i].Expression, unwrapEval(err)))
			continue
		}
		if !ok {
			return false, nil
		}
	}
	if len(errs) > 0 {
		return s.matchConditionFailure(h, a, errs)
	}
	return true, nil
}

// orNull is m, or CEL's null for an absent object (a nil map would be an
// empty one).
func orNull(m map[string]any) any {
	if m == nil {
		return nil
	}
	return m
}

func unwrapEval(err error) error {
	var ee *celeval.EvalError
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// matchConditionFailure applies h's failurePolicy to conditions that
// failed to evaluate.
func (s *Server) matchConditionFailure(h *webhook, a *admission, errs []error) (bool, error) {
	if h.failurePolicy == admissionregistrationv1.Ignore {
		return false, nil
	}
	msg := errs[0].Error()
	if len(errs) > 1 {
		parts := make([]string, len(errs))
		for i, e := range errs {
			parts[i] = e.Error()
		}
		msg = "[" + strings.Join(parts, ", ") + "]"
	}
	return false, apierrors.NewForbidden(a.req.res.gvr.GroupResource(), a.name, errors.New(msg))
}

// admissionRequestVars is the request variable of matchConditions: the
// AdmissionRequest the webhook would be sent, less its objects.
func admissionRequestVars(a *admission) map[string]any {
	res := a.req.res
	kind := map[string]any{"group": res.gvk.Group, "version": res.gvk.Version, "kind": res.gvk.Kind}
	resource := map[string]any{"group": res.gvr.Group, "version": res.gvr.Version, "resource": res.gvr.Resource}
	out := map[string]any{
		"kind": kind, "resource": resource, "subResource": a.req.sub,
		"requestKind": kind, "requestResource": resource, "requestSubResource": a.req.sub,
		"name": a.name, "namespace": a.namespace(), "operation": string(a.op),
		"userInfo": map[string]any{"username": "system:admin", "groups": []any{"system:masters", "system:authenticated"}},
		"dryRun":   a.dryRun,
	}
	if a.options != nil {
		if u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(a.options); err == nil {
			out["options"] = u
		}
	}
	return out
}

// hookConditions are the matchConditions of one webhook of a
// configuration.
type hookConditions struct {
	name       string
	conditions []admissionregistrationv1.MatchCondition
}

// checkMatchConditions checks the matchConditions of a webhook
// configuration being written: one that does not compile is refused as
// kube-apiserver refuses it (422 Invalid at its expression); one using
// the authorizer variable, which the fake does not offer, is refused with
// 501 Not Implemented (ErrUnsupportedWebhook).
func checkMatchConditions(kind, name string, hooks []hookConditions) error {
	var errs field.ErrorList
	for i, h := range hooks {
		hook := h.name
		for j, mc := range h.conditions {
			path := field.NewPath("webhooks").Index(i).Child("matchConditions").Index(j).Child("expression")
			_, err := celeval.CompileExpr(mc.Expression, matchConditionVars, celeval.Options{})
			var ce *celeval.CompileError
			switch {
			case err == nil:
			case errors.As(err, &ce) && strings.Contains(ce.Detail, "undeclared reference to 'authorizer'"):
				return &unsupportedWebhookError{StatusError: apierrors.StatusError{ErrStatus: metav1.Status{
					Status: metav1.StatusFailure, Code: http.StatusNotImplemented, Reason: metav1.StatusReason("NotImplemented"),
					Message: fmt.Sprintf("the fake server does not offer the authorizer variable to matchConditions: matchCondition %q of webhook %q of %s %s uses it; the fake refuses the configuration rather than call the webhook for requests its conditions would leave out", mc.Name, hook, kind, name),
					Details: &metav1.StatusDetails{Group: "admissionregistration.k8s.io", Kind: kind, Name: name},
				}}}
			case ce != nil:
				errs = append(errs, field.Invalid(path, mc.Expression, "compilation failed: "+ce.Detail))
			default:
				errs = append(errs, field.Invalid(path, mc.Expression, err.Error()))
			}
		}
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Group: "admissionregistration.k8s.io", Kind: kind}, name, errs)
	}
	return nil
}
