package install

import (
	"errors"
	"fmt"
	"maps"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubego/kubego/rbac"
)

// Default ports of the operator's container.
const (
	DefaultWebhookPort = 9443
	DefaultHealthPort  = 8081
)

// Label names put on every object of an installation.
const (
	// OperatorLabel holds the operator's name.
	OperatorLabel = "install.kubego.io/operator"
	// NameLabel and ManagedByLabel are the recommended labels
	// (app.kubernetes.io/name, app.kubernetes.io/managed-by).
	NameLabel      = "app.kubernetes.io/name"
	ManagedByLabel = "app.kubernetes.io/managed-by"
)

// ErrInvalidOperator is wrapped by the error of Objects for an Operator
// that cannot be installed.
var ErrInvalidOperator = errors.New("install: invalid operator")

// Operator is everything an operator's installation holds. Its Go values
// come from the program itself: CRDs built from its Go types, rules
// derived from what its Manager watches and writes, webhook
// configurations from its registered handlers.
type Operator struct {
	// Name names the ServiceAccount, Deployment, Services, roles and
	// bindings (a DNS label, "cronjob-operator"). Required.
	Name string
	// Namespace is where the operator runs. It is created when absent
	// (and removed by Uninstall then), labelled to enforce the restricted
	// Pod Security Standard. Required.
	Namespace string
	// Image is the operator's container image. Required.
	Image string
	// Args are the container's arguments.
	Args []string
	// Env is added to the container's environment, after POD_NAMESPACE
	// and POD_NAME (from the downward API).
	Env []corev1.EnvVar
	// Replicas of the Deployment. Zero means 1; more than one needs the
	// program's leader election.
	Replicas int32
	// Resources of the container. Zero means requests of 10m CPU and
	// 64Mi memory and a 256Mi memory limit.
	Resources corev1.ResourceRequirements

	// CRDs are the definitions of the operator's types (crd.Build).
	CRDs []*unstructured.Unstructured
	// Permissions are what the operator may do, granted to its
	// ServiceAccount through the roles rbac.Derive makes of them (a
	// ClusterRole for those of every namespace, a Role per namespace
	// named): usually manager.Manager.Permissions.
	Permissions []rbac.Permission

	// MutatingWebhooks and ValidatingWebhooks are the admission webhook
	// configurations. Their clientConfig should name the Service
	// WebhookService returns; a caBundle left empty is the program's to
	// fill in (Install never sets it, so it never erases one).
	MutatingWebhooks   []*admissionregistrationv1.MutatingWebhookConfiguration
	ValidatingWebhooks []*admissionregistrationv1.ValidatingWebhookConfiguration
	// WebhookPort is the container port of the webhook server. Zero
	// means DefaultWebhookPort when there are webhooks or a CRD converts
	// by webhook, and no webhook Service otherwise.
	WebhookPort int32
	// HealthPort serves /healthz and /readyz for the probes. Zero means
	// DefaultHealthPort.
	HealthPort int32
	// MetricsPort, if set, is the container port of /metrics; a Service
	// named <Name>-metrics exposes it when MetricsService is set.
	MetricsPort    int32
	MetricsService bool
	// Labels are added to every object.
	Labels map[string]string
}

// WebhookService returns the Service the webhook server is reached
// through, for the clientConfig of webhook configurations and of CRD
// conversion (port 443).
func (o Operator) WebhookService() admissionregistrationv1.ServiceReference {
	port := int32(443)
	return admissionregistrationv1.ServiceReference{Namespace: o.Namespace, Name: o.Name + "-webhook", Port: &port}
}

// Objects returns the installation, in the order Install applies it:
// Namespace, CRDs, ServiceAccount, ClusterRole and binding, Roles and
// bindings, Services, webhook configurations, Deployment. Every object
// carries OperatorLabel, NameLabel, ManagedByLabel and Labels. o's slices
// are not modified.
func (o Operator) Objects() ([]*unstructured.Unstructured, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	labels := o.labels()
	sel := map[string]string{OperatorLabel: o.Name}
	var out []runtime.Object

	out = append(out, &corev1.Namespace{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: o.Namespace, Labels: merge(labels, map[string]string{
			"pod-security.kubernetes.io/enforce": "restricted",
			"pod-security.kubernetes.io/warn":    "restricted",
		})},
	})
	sa := &corev1.ServiceAccount{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: o.Namespace, Labels: labels},
	}
	var crds []*unstructured.Unstructured
	for _, d := range o.CRDs {
		c := d.DeepCopy()
		unstructured.RemoveNestedField(c.Object, "status")
		unstructured.RemoveNestedField(c.Object, "metadata", "creationTimestamp")
		c.SetLabels(merge(c.GetLabels(), labels))
		crds = append(crds, c)
	}
	out = append(out, sa)
	if len(o.Permissions) > 0 {
		m, err := rbac.Derive(o.Permissions, rbac.Options{ServiceAccount: types.NamespacedName{Namespace: o.Namespace, Name: o.Name}, Name: o.Name})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidOperator, err)
		}
		for _, obj := range m.Objects() {
			if mo, ok := obj.(metav1.Object); ok {
				mo.SetLabels(merge(mo.GetLabels(), labels))
			}
			out = append(out, obj)
		}
	}
	webhookPort := o.webhookPort()
	if webhookPort != 0 {
		ref := o.WebhookService()
		out = append(out, &corev1.Service{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
			ObjectMeta: metav1.ObjectMeta{Name: ref.Name, Namespace: o.Namespace, Labels: labels},
			Spec: corev1.ServiceSpec{
				Selector: sel,
				Ports:    []corev1.ServicePort{{Name: "webhook", Port: *ref.Port, TargetPort: intstr.FromString("webhook"), Protocol: corev1.ProtocolTCP}},
			},
		})
	}
	if o.MetricsPort != 0 && o.MetricsService {
		out = append(out, &corev1.Service{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
			ObjectMeta: metav1.ObjectMeta{Name: o.Name + "-metrics", Namespace: o.Namespace, Labels: labels},
			Spec: corev1.ServiceSpec{
				Selector: sel,
				Ports:    []corev1.ServicePort{{Name: "metrics", Port: o.MetricsPort, TargetPort: intstr.FromString("metrics"), Protocol: corev1.ProtocolTCP}},
			},
		})
	}
	for _, w := range o.MutatingWebhooks {
		c := w.DeepCopy()
		c.TypeMeta = metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"}
		c.Labels = merge(c.Labels, labels)
		out = append(out, c)
	}
	for _, w := range o.ValidatingWebhooks {
		c := w.DeepCopy()
		c.TypeMeta = metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"}
		c.Labels = merge(c.Labels, labels)
		out = append(out, c)
	}
	out = append(out, o.deployment(labels, sel, webhookPort))

	objs := make([]*unstructured.Unstructured, 0, len(out)+len(crds))
	for i, obj := range out {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, fmt.Errorf("install: converting %T: %w", obj, err)
		}
		u := &unstructured.Unstructured{Object: m}
		unstructured.RemoveNestedField(u.Object, "status")
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
		unstructured.RemoveNestedField(u.Object, "spec", "template", "metadata", "creationTimestamp")
		objs = append(objs, u)
		if i == 0 { // CRDs right after the Namespace
			objs = append(objs, crds...)
		}
	}
	return objs, nil
}

func (o Operator) check() error {
	var errs []error
	if msgs := validation.IsDNS1123Label(o.Name); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("Name %q: %v", o.Name, msgs))
	}
	if msgs := validation.IsDNS1123Label(o.Namespace); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("Namespace %q: %v", o.Namespace, msgs))
	}
	if o.Image == "" {
		errs = append(errs, errors.New("Image is required"))
	}
	if o.Replicas < 0 {
		errs = append(errs, fmt.Errorf("Replicas %d is negative", o.Replicas))
	}
	for _, p := range []int32{o.WebhookPort, o.HealthPort, o.MetricsPort} {
		if p < 0 || p > 65535 {
			errs = append(errs, fmt.Errorf("port %d is out of range", p))
		}
	}
	for i, d := range o.CRDs {
		if d == nil || d.GetKind() != "CustomResourceDefinition" || d.GetName() == "" {
			errs = append(errs, fmt.Errorf("CRDs[%d] is not a named CustomResourceDefinition", i))
		}
	}
	for i, w := range o.MutatingWebhooks {
		if w == nil || w.Name == "" {
			errs = append(errs, fmt.Errorf("MutatingWebhooks[%d] has no name", i))
		}
	}
	for i, w := range o.ValidatingWebhooks {
		if w == nil || w.Name == "" {
			errs = append(errs, fmt.Errorf("ValidatingWebhooks[%d] has no name", i))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrInvalidOperator, errors.Join(errs...))
	}
	return nil
}

func (o Operator) labels() map[string]string {
	return merge(o.Labels, map[string]string{OperatorLabel: o.Name, NameLabel: o.Name, ManagedByLabel: "kubego"})
}

// webhookPort is the container port of the webhook server, or 0 when the
// operator serves no webhook.
func (o Operator) webhookPort() int32 {
	if o.WebhookPort != 0 {
		return o.WebhookPort
	}
	if len(o.MutatingWebhooks)+len(o.ValidatingWebhooks) > 0 {
		return DefaultWebhookPort
	}
	for _, d := range o.CRDs {
		if s, _, _ := unstructured.NestedString(d.Object, "spec", "conversion", "strategy"); s == "Webhook" {
			return DefaultWebhookPort
		}
	}
	return 0
}

func (o Operator) deployment(labels, sel map[string]string, webhookPort int32) *appsv1.Deployment {
	replicas := o.Replicas
	if replicas == 0 {
		replicas = 1
	}
	health := o.HealthPort
	if health == 0 {
		health = DefaultHealthPort
	}
	ports := []corev1.ContainerPort{{Name: "health", ContainerPort: health, Protocol: corev1.ProtocolTCP}}
	if webhookPort != 0 {
		ports = append(ports, corev1.ContainerPort{Name: "webhook", ContainerPort: webhookPort, Protocol: corev1.ProtocolTCP})
	}
	if o.MetricsPort != 0 {
		ports = append(ports, corev1.ContainerPort{Name: "metrics", ContainerPort: o.MetricsPort, Protocol: corev1.ProtocolTCP})
	}
	res := o.Resources
	if res.Requests == nil && res.Limits == nil {
		res = corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
		}
	}
	env := append([]corev1.EnvVar{
		{Name: "POD_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
		{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
	}, o.Env...)
	yes, no := true, false
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString("health")}}, PeriodSeconds: 10}
	}
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: o.Namespace, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					ServiceAccountName:            o.Name,
					TerminationGracePeriodSeconds: ptr(int64(60)),
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   &yes,
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{{
						Name:           "operator",
						Image:          o.Image,
						Args:           o.Args,
						Env:            env,
						Ports:          ports,
						Resources:      res,
						LivenessProbe:  probe("/healthz"),
						ReadinessProbe: probe("/readyz"),
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: &no,
							ReadOnlyRootFilesystem:   &yes,
							RunAsNonRoot:             &yes,
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
					}},
				},
			},
		},
	}
}

func ptr[T any](v T) *T { return &v }

// merge returns a new map holding a's entries, then b's.
func merge(a, b map[string]string) map[string]string {
	out := make(map[string]string, len(a)+len(b))
	maps.Copy(out, a)
	maps.Copy(out, b)
	return out
}
