package fake

import (
	"fmt"
	"net/url"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// approvalAnnotation is the annotation a CustomResourceDefinition of a
// protected group must carry: the URL of the API review that approved it,
// or a reason starting with "unapproved".
const approvalAnnotation = "api-approved.kubernetes.io"

// approval is the state of a definition's approvalAnnotation.
type approval int

const (
	approvalInvalid approval = iota
	approvalMissing
	approvalGranted
	approvalBypassed
)

// protectedGroup reports whether group belongs to the Kubernetes project
// (k8s.io, kubernetes.io and their subdomains).
func protectedGroup(group string) bool {
	for _, g := range []string{"k8s.io", "kubernetes.io"} {
		if group == g || strings.HasSuffix(group, "."+g) {
			return true
		}
	}
	return false
}

// approvalOf reads the approval state of a definition's annotations and
// the message kube-apiserver gives for it.
func approvalOf(annotations map[string]string) (approval, string) {
	v := annotations[approvalAnnotation]
	const see = "see https://github.com/kubernetes/enhancements/pull/1111"
	if v == "" {
		return approvalMissing, fmt.Sprintf("protected groups must have approval annotation %q, %s", approvalAnnotation, see)
	}
	if strings.HasPrefix(v, "unapproved") {
		return approvalBypassed, ""
	}
	if u, err := url.ParseRequestURI(v); err == nil && u.Scheme != "" && u.Host != "" {
		return approvalGranted, ""
	}
	return approvalInvalid, fmt.Sprintf("protected groups must have approval annotation %q with either a URL or a reason starting with \"unapproved\", %s", approvalAnnotation, see)
}

// checkAPIApproval refuses a CustomResourceDefinition u of a protected
// group whose approval annotation is missing or malformed, as
// kube-apiserver does (422 Invalid). old is the stored definition on an
// update, nil on a create: an update that leaves the approval state as it
// was is never refused, so that definitions stored before the rule keep
// working.
func checkAPIApproval(u, old map[string]any) error {
	group, _, _ := unstructured.NestedString(u, "spec", "group")
	if !protectedGroup(group) {
		return nil
	}
	nu := &unstructured.Unstructured{Object: u}
	state, msg := approvalOf(nu.GetAnnotations())
	if old != nil {
		if was, _ := approvalOf((&unstructured.Unstructured{Object: old}).GetAnnotations()); was == state {
			return nil
		}
	}
	path := field.NewPath("metadata", "annotations").Key(approvalAnnotation)
	var errs field.ErrorList
	switch state {
	case approvalGranted, approvalBypassed:
		return nil
	case approvalMissing:
		errs = append(errs, field.Required(path, msg))
	default:
		errs = append(errs, field.Invalid(path, nu.GetAnnotations()[approvalAnnotation], msg))
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: crdGVR.Group, Kind: "CustomResourceDefinition"}, nu.GetName(), errs)
}
