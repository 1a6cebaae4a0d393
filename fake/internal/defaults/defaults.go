// Package defaults sets the defaults kube-apiserver sets on the built-in
// kinds it decodes (their GA versions), for the fake server: Default
// defaults a typed object in place, ByAPIServer names the kinds
// kube-apiserver defaults at all. It reads nothing but the object and the
// time it is given.
package defaults

import (
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Default defaults a decoded built-in object in place, as
// kube-apiserver does when it decodes a request body (and an object read
// from storage); now stamps the times defaulting sets. It reports whether
// the fake has defaulting for the object's type; false leaves obj
// unchanged.
func Default(obj runtime.Object, now time.Time) bool {
	switch o := obj.(type) {
	case *corev1.Pod:
		defaultPod(o)
	case *corev1.PodTemplate:
		defaultPodTemplate(&o.Template)
	case *corev1.ReplicationController:
		defaultReplicationController(o)
	case *corev1.Service:
		defaultService(o)
	case *corev1.Secret:
		defaultSecret(o)
	case *corev1.ConfigMap:
		// kube-apiserver sets data to an empty map, which is not
		// serialized: nothing to do.
	case *corev1.PersistentVolumeClaim:
		defaultPVC(o)
	case *corev1.PersistentVolume:
		defaultPV(o)
	case *corev1.Namespace:
		defaultNamespace(o)
	case *corev1.Endpoints:
		defaultEndpoints(o)
	case *corev1.Node:
		defaultNode(o)
	case *corev1.LimitRange:
		defaultLimitRange(o)
	case *corev1.ResourceQuota:
		defaultResourceQuota(o)
	case *appsv1.Deployment:
		defaultDeployment(o)
	case *appsv1.ReplicaSet:
		defaultReplicaSet(o)
	case *appsv1.StatefulSet:
		defaultStatefulSet(o)
	case *appsv1.DaemonSet:
		defaultDaemonSet(o)
	case *batchv1.Job:
		defaultJob(o)
	case *batchv1.CronJob:
		defaultCronJob(o)
	case *autoscalingv1.HorizontalPodAutoscaler:
		defaultHPAv1(o)
	case *autoscalingv2.HorizontalPodAutoscaler:
		defaultHPAv2(o)
	case *networkingv1.NetworkPolicy:
		defaultNetworkPolicy(o)
	case *networkingv1.IngressClass:
		defaultIngressClass(o)
	case *discoveryv1.EndpointSlice:
		defaultEndpointSlice(o)
	case *rbacv1.RoleBinding:
		defaultRoleRef(&o.RoleRef)
		defaultSubjects(o.Subjects)
	case *rbacv1.ClusterRoleBinding:
		defaultRoleRef(&o.RoleRef)
		defaultSubjects(o.Subjects)
	case *storagev1.StorageClass:
		defaultStorageClass(o)
	case *storagev1.CSIDriver:
		defaultCSIDriver(o)
	case *schedulingv1.PriorityClass:
		defaultPriorityClass(o)
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		defaultValidatingWebhooks(o)
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		defaultMutatingWebhooks(o)
	case *admissionregistrationv1.ValidatingAdmissionPolicy:
		if o.Spec.FailurePolicy == nil {
			o.Spec.FailurePolicy = ptrTo(admissionregistrationv1.Fail)
		}
		defaultMatchResources(o.Spec.MatchConstraints)
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
		defaultMatchResources(o.Spec.MatchResources)
	case *admissionregistrationv1.MutatingAdmissionPolicy:
		if o.Spec.FailurePolicy == nil {
			o.Spec.FailurePolicy = ptrTo(admissionregistrationv1.Fail)
		}
		defaultMatchResources(o.Spec.MatchConstraints)
	case *admissionregistrationv1.MutatingAdmissionPolicyBinding:
		defaultMatchResources(o.Spec.MatchResources)
	case *flowcontrolv1.FlowSchema:
		defaultFlowSchema(o)
	case *flowcontrolv1.PriorityLevelConfiguration:
		defaultPriorityLevel(o)
	case *certificatesv1.PodCertificateRequest:
		defaultPodCertificateRequest(o)
	case *storagev1.VolumeAttachment:
		defaultVolumeAttachment(o)
	case *resourcev1.ResourceClaim:
		defaultResourceClaim(o)
	case *resourcev1.ResourceClaimTemplate:
		defaultDeviceClaim(&o.Spec.Spec)
	case *resourcev1.ResourceSlice:
		for i := range o.Spec.Devices {
			for j := range o.Spec.Devices[i].Taints {
				defaultDeviceTaint(&o.Spec.Devices[i].Taints[j], now)
			}
		}
	case *resourcev1.DeviceTaintRule:
		defaultDeviceTaint(&o.Spec.Taint, now)
	default:
		return false
	}
	return true
}

// ByAPIServer are the built-in kinds kube-apiserver v1.37 has
// defaulting functions for, in some served version (the types registered
// in the zz_generated.defaults.go files of k8s.io/kubernetes/pkg/apis,
// and CustomResourceDefinition and APIService of the aggregated servers).
// A kind not listed is stored as written by kube-apiserver too.
var ByAPIServer = map[schema.GroupKind]bool{
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicy"}:          true,
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicyBinding"}:   true,
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}:     true,
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"}:        true,
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicyBinding"}: true,
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}:   true,
	{Group: "apps", Kind: "DaemonSet"}:                                                true,
	{Group: "apps", Kind: "Deployment"}:                                               true,
	{Group: "apps", Kind: "ReplicaSet"}:                                               true,
	{Group: "apps", Kind: "StatefulSet"}:                                              true,
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}:                           true,
	{Group: "batch", Kind: "CronJob"}:                                                 true,
	{Group: "batch", Kind: "Job"}:                                                     true,
	{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}:                 true,
	{Group: "certificates.k8s.io", Kind: "PodCertificateRequest"}:                     true,
	{Group: "", Kind: "ConfigMap"}:                                                    true,
	{Group: "", Kind: "Endpoints"}:                                                    true,
	{Group: "", Kind: "LimitRange"}:                                                   true,
	{Group: "", Kind: "Namespace"}:                                                    true,
	{Group: "", Kind: "Node"}:                                                         true,
	{Group: "", Kind: "PersistentVolume"}:                                             true,
	{Group: "", Kind: "PersistentVolumeClaim"}:                                        true,
	{Group: "", Kind: "Pod"}:                                                          true,
	{Group: "", Kind: "PodTemplate"}:                                                  true,
	{Group: "", Kind: "ReplicationController"}:                                        true,
	{Group: "", Kind: "ResourceQuota"}:                                                true,
	{Group: "", Kind: "Secret"}:                                                       true,
	{Group: "", Kind: "Service"}:                                                      true,
	{Group: "discovery.k8s.io", Kind: "EndpointSlice"}:                                true,
	{Group: "extensions", Kind: "DaemonSet"}:                                          true,
	{Group: "extensions", Kind: "Deployment"}:                                         true,
	{Group: "extensions", Kind: "Ingress"}:                                            true,
	{Group: "extensions", Kind: "NetworkPolicy"}:                                      true,
	{Group: "extensions", Kind: "ReplicaSet"}:                                         true,
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "FlowSchema"}:                       true,
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "PriorityLevelConfiguration"}:       true,
	{Group: "networking.k8s.io", Kind: "IngressClass"}:                                true,
	{Group: "networking.k8s.io", Kind: "NetworkPolicy"}:                               true,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}:                  true,
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:                         true,
	{Group: "resource.k8s.io", Kind: "DeviceTaintRule"}:                               true,
	{Group: "resource.k8s.io", Kind: "ResourceClaim"}:                                 true,
	{Group: "resource.k8s.io", Kind: "ResourceClaimTemplate"}:                         true,
	{Group: "resource.k8s.io", Kind: "ResourcePoolStatusRequest"}:                     true,
	{Group: "resource.k8s.io", Kind: "ResourceSlice"}:                                 true,
	{Group: "scheduling.k8s.io", Kind: "CompositePodGroup"}:                           true,
	{Group: "scheduling.k8s.io", Kind: "PodGroup"}:                                    true,
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}:                               true,
	{Group: "storage.k8s.io", Kind: "CSIDriver"}:                                      true,
	{Group: "storage.k8s.io", Kind: "StorageClass"}:                                   true,
	{Group: "storage.k8s.io", Kind: "VolumeAttachment"}:                               true,
}
