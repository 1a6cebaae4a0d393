package fake_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/netip"
	"reflect"
	"slices"
	"sort"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubego/kubego/scheme"
)

// defaultingCases check that built-in kinds are stored with the defaults
// kube-apiserver gives them. The wanted objects were captured from
// kube-apiserver: when a release changes a default, the real run fails
// and the row (and the fake) must follow.
func defaultingCases() []conformanceCase {
	return []conformanceCase{
		{"BuiltinKindsAreStoredDefaulted", builtinKindsAreStoredDefaulted},
		{"DesiredStateMatchesLiveAfterDryRunDefaulting", desiredStateConverges},
		{"ServiceUpdateKeepsAllocatedValues", serviceUpdateKeepsAllocated},
		{"EveryWritePathDefaults", everyWritePathDefaults},
		{"WriterOwnsDefaultsNotAllocations", writerOwnsDefaultsNotAllocations},
		{"UnusedClaimIsDeletedDespiteItsProtectionFinalizer", unusedClaimIsDeleted},
		{"CustomResourceDefinitionIsStoredDefaulted", crdIsStoredDefaulted},
	}
}

// defaultingRow is one minimal object and what the server stores.
type defaultingRow struct {
	name     string
	resource string
	obj      runtime.Object
	// dryRun creates with dryRun=All (cluster-scoped kinds, so the shared
	// real server keeps nothing) and compares the answer.
	dryRun bool
	want   string
}

func podSpecIn(images ...string) corev1.PodSpec {
	var cs []corev1.Container
	for i, img := range images {
		cs = append(cs, corev1.Container{Name: fmt.Sprintf("c%d", i), Image: img})
	}
	return corev1.PodSpec{Containers: cs}
}

func templateIn(labels map[string]string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: podSpecIn("registry.example/app:1")}
}

func om(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name} }

func defaultingRows() []defaultingRow {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}
	lbl := map[string]string{"app": "a"}
	fullPod := &corev1.Pod{ObjectMeta: om("pod"), Spec: corev1.PodSpec{
		Containers: []corev1.Container{{
			Name: "app", Image: "registry.example/app:1",
			Ports:          []corev1.ContainerPort{{ContainerPort: 8080}},
			Env:            []corev1.EnvVar{{Name: "POD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
			LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(8080)}}},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9000}}},
			Resources:      corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}},
		}, {Name: "latest", Image: "busybox"}},
		InitContainers: []corev1.Container{{Name: "init", Image: "busybox:latest"}},
		Volumes: []corev1.Volume{
			{Name: "empty"},
			{Name: "secret", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}},
			{Name: "cm", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "c"}}}},
			{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp"}}},
			{Name: "proj", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "c"}}},
				{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "name", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}},
			}}}},
		},
	}}
	clusterIP := func(name string, spec corev1.ServiceSpec) *corev1.Service {
		return &corev1.Service{ObjectMeta: om(name), Spec: spec}
	}
	port80 := []corev1.ServicePort{{Name: "http", Port: 80}}
	return []defaultingRow{
		{name: "Pod", want: `{"apiVersion":"v1","kind":"Pod","metadata":{"generation":1,"name":"pod","namespace":"NS"},"spec":{"containers":[{"env":[{"name":"POD","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}],"image":"registry.example/app:1","imagePullPolicy":"IfNotPresent","livenessProbe":{"failureThreshold":3,"httpGet":{"path":"/","port":8080,"scheme":"HTTP"},"periodSeconds":10,"successThreshold":1,"timeoutSeconds":1},"name":"app","ports":[{"containerPort":8080,"protocol":"TCP"}],"readinessProbe":{"failureThreshold":3,"grpc":{"port":9000,"service":""},"periodSeconds":10,"successThreshold":1,"timeoutSeconds":1},"resources":{"limits":{"cpu":"100m"},"requests":{"cpu":"100m"}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"},{"image":"busybox","imagePullPolicy":"Always","name":"latest","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","enableServiceLinks":true,"initContainers":[{"image":"busybox:latest","imagePullPolicy":"Always","name":"init","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"preemptionPolicy":"PreemptLowerPriority","priority":0,"restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30,"tolerations":[{"effect":"NoExecute","key":"node.kubernetes.io/not-ready","operator":"Exists","tolerationSeconds":300},{"effect":"NoExecute","key":"node.kubernetes.io/unreachable","operator":"Exists","tolerationSeconds":300}],"volumes":[{"emptyDir":{},"name":"empty"},{"name":"secret","secret":{"defaultMode":420,"secretName":"s"}},{"configMap":{"defaultMode":420,"name":"c"},"name":"cm"},{"hostPath":{"path":"/tmp","type":""},"name":"host"},{"name":"proj","projected":{"defaultMode":420,"sources":[{"configMap":{"name":"c"}},{"downwardAPI":{"items":[{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"},"path":"name"}]}}]}}]},"status":{"phase":"Pending","qosClass":"Burstable"}}`, resource: "pods", obj: fullPod},
		{name: "PodTemplate", want: `{"apiVersion":"v1","kind":"PodTemplate","metadata":{"generation":1,"name":"pt","namespace":"NS"},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"image":"registry.example/app:1","imagePullPolicy":"IfNotPresent","name":"c0","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}}`, resource: "podtemplates", obj: &corev1.PodTemplate{ObjectMeta: om("pt"), Template: templateIn(lbl)}},
		{name: "ReplicationController", want: `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"generation":1,"labels":{"app":"a"},"name":"rc","namespace":"NS"},"spec":{"replicas":1,"selector":{"app":"a"},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"image":"registry.example/app:1","imagePullPolicy":"IfNotPresent","name":"c0","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}},"status":{"replicas":0}}`, resource: "replicationcontrollers", obj: &corev1.ReplicationController{ObjectMeta: om("rc"), Spec: corev1.ReplicationControllerSpec{Template: ptr(templateIn(lbl))}}},
		{name: "Deployment", want: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":1,"name":"deploy","namespace":"NS"},"spec":{"progressDeadlineSeconds":600,"replicas":1,"revisionHistoryLimit":10,"selector":{"matchLabels":{"app":"a"}},"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"},"type":"RollingUpdate"},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"image":"registry.example/app:1","imagePullPolicy":"IfNotPresent","name":"c0","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}},"status":{}}`, resource: "deployments", obj: &appsv1.Deployment{ObjectMeta: om("deploy"), Spec: appsv1.DeploymentSpec{Selector: sel, Template: templateIn(lbl)}}},
		{name: "ReplicaSet", want: `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"generation":1,"name":"rs","namespace":"NS"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"image":"registry.example/app:1","imagePullPolicy":"IfNotPresent","name":"c0","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}},"status":{"replicas":0}}`, resource: "replicasets", obj: &appsv1.ReplicaSet{ObjectMeta: om("rs"), Spec: appsv1.ReplicaSetSpec{Selector: sel, Template: templateIn(lbl)}}},
		{name: "StatefulSet", want: `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"generation":1,"name":"sts","namespace":"NS"},"spec":{"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Retain","whenScaled":"Retain"},"podManagementPolicy":"OrderedReady","replicas":1,"revisionHistoryLimit":10,"selector":{"matchLabels":{"app":"a"}},"serviceName":"","template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"image":"registry.example/app:1","imagePullPolicy":"IfNotPresent","name":"c0","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}},"updateStrategy":{"rollingUpdate":{"maxUnavailable":1,"partition":0},"type":"RollingUpdate"},"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},"volumeMode":"Filesystem"},"status":{"phase":"Pending"}}]},"status":{"availableReplicas":0,"replicas":0}}`, resource: "statefulsets", obj: &appsv1.StatefulSet{ObjectMeta: om("sts"), Spec: appsv1.StatefulSetSpec{Selector: sel, Template: templateIn(lbl),
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: om("data"), Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}}}}},
		{name: "DaemonSet", want: `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"annotations":{"deprecated.daemonset.template.generation":"1"},"generation":1,"name":"ds","namespace":"NS"},"spec":{"revisionHistoryLimit":10,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"image":"registry.example/app:1","imagePullPolicy":"IfNotPresent","name":"c0","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}},"updateStrategy":{"rollingUpdate":{"maxSurge":0,"maxUnavailable":1},"type":"RollingUpdate"}},"status":{"currentNumberScheduled":0,"desiredNumberScheduled":0,"numberMisscheduled":0,"numberReady":0}}`, resource: "daemonsets", obj: &appsv1.DaemonSet{ObjectMeta: om("ds"), Spec: appsv1.DaemonSetSpec{Selector: sel, Template: templateIn(lbl)}}},
		{name: "Job", want: `{"apiVersion":"batch/v1","kind":"Job","metadata":{"generation":1,"labels":{"batch.kubernetes.io/controller-uid":"UID","batch.kubernetes.io/job-name":"job","controller-uid":"UID","job-name":"job"},"name":"job","namespace":"NS"},"spec":{"backoffLimit":6,"completionMode":"NonIndexed","completions":1,"manualSelector":false,"parallelism":1,"podReplacementPolicy":"TerminatingOrFailed","selector":{"matchLabels":{"batch.kubernetes.io/controller-uid":"UID"}},"suspend":false,"template":{"metadata":{"labels":{"batch.kubernetes.io/controller-uid":"UID","batch.kubernetes.io/job-name":"job","controller-uid":"UID","job-name":"job"}},"spec":{"containers":[{"image":"registry.example/app:1","imagePullPolicy":"IfNotPresent","name":"c0","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Never","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}},"status":{}}`, resource: "jobs", obj: &batchv1.Job{ObjectMeta: om("job"), Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: podSpecIn("registry.example/app:1").Containers}}}}},
		{name: "JobWithTemplateLabels", want: `{"apiVersion":"batch/v1","kind":"Job","metadata":{"generation":1,"labels":{"app":"a","batch.kubernetes.io/controller-uid":"UID","batch.kubernetes.io/job-name":"job2","controller-uid":"UID","job-name":"job2"},"name":"job2","namespace":"NS"},"spec":{"backoffLimit":6,"completionMode":"NonIndexed","completions":1,"manualSelector":false,"parallelism":1,"podReplacementPolicy":"TerminatingOrFailed","selector":{"matchLabels":{"batch.kubernetes.io/controller-uid":"UID"}},"suspend":false,"template":{"metadata":{"labels":{"app":"a","batch.kubernetes.io/controller-uid":"UID","batch.kubernetes.io/job-name":"job2","controller-uid":"UID","job-name":"job2"}},"spec":{"containers":[{"image":"registry.example/app:1","imagePullPolicy":"IfNotPresent","name":"c0","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Never","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}},"status":{}}`, resource: "jobs", obj: &batchv1.Job{ObjectMeta: om("job2"), Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: lbl}, Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: podSpecIn("registry.example/app:1").Containers}}}}},
		{name: "CronJob", want: `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"generation":1,"name":"cj","namespace":"NS"},"spec":{"concurrencyPolicy":"Allow","failedJobsHistoryLimit":1,"jobTemplate":{"metadata":{},"spec":{"template":{"metadata":{},"spec":{"containers":[{"image":"registry.example/app:1","imagePullPolicy":"IfNotPresent","name":"c0","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"OnFailure","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}}},"schedule":"*/5 * * * *","successfulJobsHistoryLimit":3,"suspend":false},"status":{}}`, resource: "cronjobs", obj: &batchv1.CronJob{ObjectMeta: om("cj"), Spec: batchv1.CronJobSpec{Schedule: "*/5 * * * *", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyOnFailure, Containers: podSpecIn("registry.example/app:1").Containers}}}}}}},
		{name: "ServiceClusterIP", want: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"svc","namespace":"NS"},"spec":{"clusterIP":"CLUSTER-IP","clusterIPs":["CLUSTER-IP"],"internalTrafficPolicy":"Cluster","ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack","ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":80}],"selector":{"app":"a"},"sessionAffinity":"None","type":"ClusterIP"},"status":{"loadBalancer":{}}}`, resource: "services", obj: clusterIP("svc", corev1.ServiceSpec{Selector: lbl, Ports: port80})},
		{name: "ServiceNodePort", want: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"svc-np","namespace":"NS"},"spec":{"clusterIP":"CLUSTER-IP","clusterIPs":["CLUSTER-IP"],"externalTrafficPolicy":"Cluster","internalTrafficPolicy":"Cluster","ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack","ports":[{"name":"http","nodePort":"NODE-PORT","port":80,"protocol":"TCP","targetPort":80}],"selector":{"app":"a"},"sessionAffinity":"None","type":"NodePort"},"status":{"loadBalancer":{}}}`, resource: "services", obj: clusterIP("svc-np", corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Selector: lbl, Ports: port80})},
		{name: "ServiceLoadBalancerLocal", want: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"svc-lb","namespace":"NS"},"spec":{"allocateLoadBalancerNodePorts":true,"clusterIP":"CLUSTER-IP","clusterIPs":["CLUSTER-IP"],"externalTrafficPolicy":"Local","healthCheckNodePort":"NODE-PORT","internalTrafficPolicy":"Cluster","ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack","ports":[{"name":"http","nodePort":"NODE-PORT","port":80,"protocol":"TCP","targetPort":80}],"selector":{"app":"a"},"sessionAffinity":"None","type":"LoadBalancer"},"status":{"loadBalancer":{}}}`, resource: "services", obj: clusterIP("svc-lb", corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyLocal, Selector: lbl, Ports: port80})},
		{name: "ServiceHeadless", want: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"svc-hl","namespace":"NS"},"spec":{"clusterIP":"None","clusterIPs":["None"],"internalTrafficPolicy":"Cluster","ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack","ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":80}],"selector":{"app":"a"},"sessionAffinity":"None","type":"ClusterIP"},"status":{"loadBalancer":{}}}`, resource: "services", obj: clusterIP("svc-hl", corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: lbl, Ports: port80})},
		{name: "ServiceHeadlessWithoutSelector", want: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"svc-hl2","namespace":"NS"},"spec":{"clusterIP":"None","clusterIPs":["None"],"internalTrafficPolicy":"Cluster","ipFamilies":["IPv4","IPv6"],"ipFamilyPolicy":"RequireDualStack","ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":80}],"sessionAffinity":"None","type":"ClusterIP"},"status":{"loadBalancer":{}}}`, resource: "services", obj: clusterIP("svc-hl2", corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Ports: port80})},
		{name: "ServiceExternalName", want: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"svc-en","namespace":"NS"},"spec":{"externalName":"example.com","sessionAffinity":"None","type":"ExternalName"},"status":{"loadBalancer":{}}}`, resource: "services", obj: clusterIP("svc-en", corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "example.com"})},
		{name: "ServiceClientIPAffinity", want: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"svc-aff","namespace":"NS"},"spec":{"clusterIP":"CLUSTER-IP","clusterIPs":["CLUSTER-IP"],"internalTrafficPolicy":"Cluster","ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack","ports":[{"port":80,"protocol":"TCP","targetPort":"http"}],"sessionAffinity":"ClientIP","sessionAffinityConfig":{"clientIP":{"timeoutSeconds":10800}},"type":"ClusterIP"},"status":{"loadBalancer":{}}}`, resource: "services", obj: clusterIP("svc-aff", corev1.ServiceSpec{SessionAffinity: corev1.ServiceAffinityClientIP, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromString("http")}}})},
		{name: "Secret", want: `{"apiVersion":"v1","data":{"k":"dg=="},"kind":"Secret","metadata":{"name":"secret","namespace":"NS"},"type":"Opaque"}`, resource: "secrets", obj: &corev1.Secret{ObjectMeta: om("secret"), StringData: map[string]string{"k": "v"}}},
		{name: "ConfigMap", want: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"NS"}}`, resource: "configmaps", obj: &corev1.ConfigMap{ObjectMeta: om("cm")}},
		{name: "ServiceAccount", want: `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"sa","namespace":"NS"}}`, resource: "serviceaccounts", obj: &corev1.ServiceAccount{ObjectMeta: om("sa")}},
		{name: "PersistentVolumeClaim", want: `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"finalizers":["kubernetes.io/pvc-protection"],"name":"pvc","namespace":"NS"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},"volumeMode":"Filesystem"},"status":{"phase":"Pending"}}`, resource: "persistentvolumeclaims", obj: &corev1.PersistentVolumeClaim{ObjectMeta: om("pvc"), Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}},
		{name: "Endpoints", want: `{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"ep","namespace":"NS"},"subsets":[{"addresses":[{"ip":"10.1.0.1"}],"ports":[{"port":80,"protocol":"TCP"}]}]}`, resource: "endpoints", obj: &corev1.Endpoints{ObjectMeta: om("ep"), Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "10.1.0.1"}}, Ports: []corev1.EndpointPort{{Port: 80}}}}}},
		{name: "LimitRange", want: `{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"lr","namespace":"NS"},"spec":{"limits":[{"default":{"cpu":"1"},"defaultRequest":{"cpu":"1"},"max":{"cpu":"1"},"type":"Container"}]}}`, resource: "limitranges", obj: &corev1.LimitRange{ObjectMeta: om("lr"), Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer, Max: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}}},
		{name: "ResourceQuota", want: `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"rq","namespace":"NS"},"spec":{"hard":{"pods":"10"}},"status":{}}`, resource: "resourcequotas", obj: &corev1.ResourceQuota{ObjectMeta: om("rq"), Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("10")}}}},
		{name: "EndpointSlice", want: `{"addressType":"IPv4","apiVersion":"discovery.k8s.io/v1","endpoints":null,"kind":"EndpointSlice","metadata":{"generation":1,"name":"eps","namespace":"NS"},"ports":[{"name":"","port":80,"protocol":"TCP"}]}`, resource: "endpointslices", obj: &discoveryv1.EndpointSlice{ObjectMeta: om("eps"), AddressType: discoveryv1.AddressTypeIPv4, Ports: []discoveryv1.EndpointPort{{Port: ptr[int32](80)}}}},
		{name: "HorizontalPodAutoscalerV2", want: `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"generation":1,"name":"hpa2","namespace":"NS"},"spec":{"behavior":{"scaleDown":{"policies":[{"periodSeconds":15,"type":"Percent","value":100}],"selectPolicy":"Max","stabilizationWindowSeconds":60},"scaleUp":{"policies":[{"periodSeconds":15,"type":"Pods","value":4},{"periodSeconds":15,"type":"Percent","value":100}],"selectPolicy":"Max","stabilizationWindowSeconds":0}},"maxReplicas":5,"metrics":[{"resource":{"name":"cpu","target":{"averageUtilization":80,"type":"Utilization"}},"type":"Resource"}],"minReplicas":1,"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"}},"status":{"currentMetrics":null,"desiredReplicas":0}}`, resource: "horizontalpodautoscalers", obj: &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: om("hpa2"), Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "d"}, MaxReplicas: 5,
			Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr[int32](60)}}}}},
		{name: "HorizontalPodAutoscalerV1", want: `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"generation":1,"name":"hpa1","namespace":"NS"},"spec":{"maxReplicas":5,"minReplicas":1,"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"},"targetCPUUtilizationPercentage":50},"status":{"currentReplicas":0,"desiredReplicas":0}}`, resource: "horizontalpodautoscalers", obj: &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: om("hpa1"), Spec: autoscalingv1.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "d"}, MaxReplicas: 5, TargetCPUUtilizationPercentage: ptr[int32](50)}}},
		{name: "PodDisruptionBudget", want: `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"generation":1,"name":"pdb","namespace":"NS"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"a"}}},"status":{"currentHealthy":0,"desiredHealthy":0,"disruptionsAllowed":0,"expectedPods":0}}`, resource: "poddisruptionbudgets", obj: &policyv1.PodDisruptionBudget{ObjectMeta: om("pdb"), Spec: policyv1.PodDisruptionBudgetSpec{Selector: sel, MinAvailable: ptr(intstr.FromInt32(1))}}},
		{name: "NetworkPolicy", want: `{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"generation":1,"name":"np","namespace":"NS"},"spec":{"egress":[{}],"ingress":[{"ports":[{"port":80,"protocol":"TCP"}]}],"podSelector":{},"policyTypes":["Ingress","Egress"]}}`, resource: "networkpolicies", obj: &networkingv1.NetworkPolicy{ObjectMeta: om("np"), Spec: networkingv1.NetworkPolicySpec{
			Ingress: []networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{{Port: ptr(intstr.FromInt32(80))}}}},
			Egress:  []networkingv1.NetworkPolicyEgressRule{{}}}}},
		{name: "Ingress", want: `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"generation":1,"name":"ing","namespace":"NS"},"spec":{"defaultBackend":{"service":{"name":"svc","port":{"number":80}}}},"status":{"loadBalancer":{}}}`, resource: "ingresses", obj: &networkingv1.Ingress{ObjectMeta: om("ing"), Spec: networkingv1.IngressSpec{DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "svc", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}},
		{name: "RoleBinding", want: `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"rb","namespace":"NS"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"u"},{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"g"},{"kind":"ServiceAccount","name":"sa","namespace":"x"}]}`, resource: "rolebindings", obj: &rbacv1.RoleBinding{ObjectMeta: om("rb"), RoleRef: rbacv1.RoleRef{Kind: "Role", Name: "r"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "u"}, {Kind: rbacv1.GroupKind, Name: "g"}, {Kind: rbacv1.ServiceAccountKind, Name: "sa", Namespace: "x"}}}},
		{name: "Namespace", want: `{"apiVersion":"v1","kind":"Namespace","metadata":{"labels":{"kubernetes.io/metadata.name":"defaulted-ns"},"name":"defaulted-ns"},"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}}`, resource: "namespaces", dryRun: true, obj: &corev1.Namespace{ObjectMeta: om("defaulted-ns")}},
		{name: "PersistentVolume", want: `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"finalizers":["kubernetes.io/pv-protection"],"name":"defaulted-pv"},"spec":{"accessModes":["ReadWriteOnce"],"capacity":{"storage":"1Gi"},"hostPath":{"path":"/tmp","type":""},"persistentVolumeReclaimPolicy":"Retain","volumeMode":"Filesystem"},"status":{"lastPhaseTransitionTime":"TIME","phase":"Pending"}}`, resource: "persistentvolumes", dryRun: true, obj: &corev1.PersistentVolume{ObjectMeta: om("defaulted-pv"), Spec: corev1.PersistentVolumeSpec{
			Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp"}}}}},
		{name: "ClusterRoleBinding", want: `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"defaulted-crb"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"u"}]}`, resource: "clusterrolebindings", dryRun: true, obj: &rbacv1.ClusterRoleBinding{ObjectMeta: om("defaulted-crb"), RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"}, Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "u"}}}},
		{name: "StorageClass", want: `{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"defaulted-sc"},"provisioner":"example.com/p","reclaimPolicy":"Delete","volumeBindingMode":"Immediate"}`, resource: "storageclasses", dryRun: true, obj: &storagev1.StorageClass{ObjectMeta: om("defaulted-sc"), Provisioner: "example.com/p"}},
		{name: "CSIDriver", want: `{"apiVersion":"storage.k8s.io/v1","kind":"CSIDriver","metadata":{"name":"defaulted.example.com"},"spec":{"attachRequired":true,"fsGroupPolicy":"ReadWriteOnceWithFSType","podInfoOnMount":false,"preventPodSchedulingIfMissing":false,"requiresRepublish":false,"seLinuxMount":false,"storageCapacity":false,"volumeLifecycleModes":["Persistent"]}}`, resource: "csidrivers", dryRun: true, obj: &storagev1.CSIDriver{ObjectMeta: om("defaulted.example.com")}},
		{name: "PriorityClass", want: `{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"generation":1,"name":"defaulted-pc"},"preemptionPolicy":"PreemptLowerPriority","value":100}`, resource: "priorityclasses", dryRun: true, obj: &schedulingv1.PriorityClass{ObjectMeta: om("defaulted-pc"), Value: 100}},
		{name: "IngressClass", want: `{"apiVersion":"networking.k8s.io/v1","kind":"IngressClass","metadata":{"generation":1,"name":"defaulted-ic"},"spec":{"controller":"example.com/c","parameters":{"kind":"K","name":"n","scope":"Cluster"}}}`, resource: "ingressclasses", dryRun: true, obj: &networkingv1.IngressClass{ObjectMeta: om("defaulted-ic"), Spec: networkingv1.IngressClassSpec{Controller: "example.com/c",
			Parameters: &networkingv1.IngressClassParametersReference{Kind: "K", Name: "n"}}}},
		{name: "ValidatingWebhookConfiguration", want: `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"generation":1,"name":"defaulted-vwc"},"webhooks":[{"admissionReviewVersions":["v1"],"clientConfig":{"service":{"name":"svc","namespace":"ns","port":443}},"failurePolicy":"Fail","matchPolicy":"Equivalent","name":"v.example.com","namespaceSelector":{},"objectSelector":{},"rules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["pods"],"scope":"*"}],"sideEffects":"None","timeoutSeconds":10}]}`, resource: "validatingwebhookconfigurations", dryRun: true, obj: &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: om("defaulted-vwc"),
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "v.example.com", SideEffects: ptr(admissionregistrationv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"},
				ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "svc"}},
				Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}}}}},
		{name: "MutatingWebhookConfiguration", want: `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration","metadata":{"generation":1,"name":"defaulted-mwc"},"webhooks":[{"admissionReviewVersions":["v1"],"clientConfig":{"url":"https://example.com/m"},"failurePolicy":"Fail","matchPolicy":"Equivalent","name":"m.example.com","namespaceSelector":{},"objectSelector":{},"reinvocationPolicy":"Never","sideEffects":"None","timeoutSeconds":10}]}`, resource: "mutatingwebhookconfigurations", dryRun: true, obj: &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: om("defaulted-mwc"),
			Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "m.example.com", SideEffects: ptr(admissionregistrationv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"},
				ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr("https://example.com/m")}}}}},
		{name: "ValidatingAdmissionPolicy", want: `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"generation":1,"name":"defaulted-vap"},"spec":{"failurePolicy":"Fail","matchConstraints":{"matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{},"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["pods"],"scope":"*"}]},"validations":[{"expression":"true"}]},"status":{}}`, resource: "validatingadmissionpolicies", dryRun: true, obj: &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: om("defaulted-vap"), Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}}},
			Validations: []admissionregistrationv1.Validation{{Expression: "true"}}}}},
		{name: "ValidatingAdmissionPolicyBinding", want: `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"generation":1,"name":"defaulted-vapb"},"spec":{"matchResources":{"matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{}},"policyName":"defaulted-vap","validationActions":["Deny"]}}`, resource: "validatingadmissionpolicybindings", dryRun: true, obj: &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: om("defaulted-vapb"), Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: "defaulted-vap", ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}, MatchResources: &admissionregistrationv1.MatchResources{}}}},
		{name: "MutatingAdmissionPolicy", want: `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicy","metadata":{"generation":1,"name":"defaulted-map"},"spec":{"failurePolicy":"Fail","matchConstraints":{"matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{},"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["pods"],"scope":"*"}]},"mutations":[{"applyConfiguration":{"expression":"Object{metadata: Object.metadata{labels: {\"a\": \"b\"}}}"},"patchType":"ApplyConfiguration"}],"reinvocationPolicy":"Never"}}`, resource: "mutatingadmissionpolicies", dryRun: true, obj: &admissionregistrationv1.MutatingAdmissionPolicy{ObjectMeta: om("defaulted-map"), Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}}},
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
			Mutations: []admissionregistrationv1.Mutation{{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: `Object{metadata: Object.metadata{labels: {"a": "b"}}}`}}}}}},
		{name: "MutatingAdmissionPolicyBinding", want: `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicyBinding","metadata":{"generation":1,"name":"defaulted-mapb"},"spec":{"matchResources":{"matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{}},"policyName":"defaulted-map"}}`, resource: "mutatingadmissionpolicybindings", dryRun: true, obj: &admissionregistrationv1.MutatingAdmissionPolicyBinding{ObjectMeta: om("defaulted-mapb"), Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{
			PolicyName: "defaulted-map", MatchResources: &admissionregistrationv1.MatchResources{}}}},
		{name: "Node", want: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"defaulted-node"},"spec":{"taints":[{"effect":"NoSchedule","key":"node.kubernetes.io/not-ready"}]},"status":{"allocatable":{"cpu":"1m","pods":"110"},"capacity":{"cpu":"1m","pods":"110"},"daemonEndpoints":{"kubeletEndpoint":{"Port":0}},"nodeInfo":{"architecture":"","bootID":"","containerRuntimeVersion":"","kernelVersion":"","kubeProxyVersion":"","kubeletVersion":"","machineID":"","operatingSystem":"","osImage":"","systemUUID":""}}}`, resource: "nodes", dryRun: true, obj: &corev1.Node{ObjectMeta: om("defaulted-node"), Status: corev1.NodeStatus{
			Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0.0001"), corev1.ResourcePods: resource.MustParse("110")}}}},
		{name: "FlowSchema", want: `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema","metadata":{"generation":1,"name":"defaulted-fs"},"spec":{"matchingPrecedence":1000,"priorityLevelConfiguration":{"name":"global-default"}},"status":{}}`, resource: "flowschemas", dryRun: true, obj: &flowcontrolv1.FlowSchema{ObjectMeta: om("defaulted-fs"), Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "global-default"}}}},
		{name: "PriorityLevelConfiguration", want: `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration","metadata":{"generation":1,"name":"defaulted-plc"},"spec":{"limited":{"lendablePercent":0,"limitResponse":{"queuing":{"handSize":8,"queueLengthLimit":50,"queues":64},"type":"Queue"},"nominalConcurrencyShares":30},"type":"Limited"},"status":{}}`, resource: "prioritylevelconfigurations", dryRun: true, obj: &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: om("defaulted-plc"), Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited, Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{LimitResponse: flowcontrolv1.LimitResponse{
				Type: flowcontrolv1.LimitResponseTypeQueue, Queuing: &flowcontrolv1.QueuingConfiguration{}}}}}},
		{name: "VolumeAttachment", want: `{"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttachment","metadata":{"name":"defaulted-va"},"spec":{"attacher":"csi.example.com","nodeName":"n","source":{"inlineVolumeSpec":{"accessModes":["ReadWriteOnce"],"csi":{"driver":"csi.example.com","volumeHandle":"h"}}}},"status":{"attached":false}}`, resource: "volumeattachments", dryRun: true, obj: &storagev1.VolumeAttachment{ObjectMeta: om("defaulted-va"), Spec: storagev1.VolumeAttachmentSpec{
			Attacher: "csi.example.com", NodeName: "n", Source: storagev1.VolumeAttachmentSource{InlineVolumeSpec: &corev1.PersistentVolumeSpec{
				AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "csi.example.com", VolumeHandle: "h"}}}}}}},
		{name: "ResourceClaim", want: `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"claim","namespace":"NS"},"spec":{"devices":{"requests":[{"exactly":{"allocationMode":"ExactCount","count":1,"deviceClassName":"gpu.example.com","tolerations":[{"effect":"NoSchedule","key":"k","operator":"Equal","value":"v"}]},"name":"gpu"}]}},"status":{}}`, resource: "resourceclaims", obj: &resourcev1.ResourceClaim{ObjectMeta: om("claim"), Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
			Requests: []resourcev1.DeviceRequest{{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu.example.com",
				Tolerations: []resourcev1.DeviceToleration{{Key: "k", Value: "v", Effect: resourcev1.DeviceTaintEffectNoSchedule}}}}}}}}},
		{name: "ResourceClaimTemplate", want: `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"claim-tmpl","namespace":"NS"},"spec":{"metadata":{},"spec":{"devices":{"requests":[{"firstAvailable":[{"allocationMode":"ExactCount","count":1,"deviceClassName":"gpu.example.com","name":"big"}],"name":"gpu"}]}}}}`, resource: "resourceclaimtemplates", obj: &resourcev1.ResourceClaimTemplate{ObjectMeta: om("claim-tmpl"), Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
			Requests: []resourcev1.DeviceRequest{{Name: "gpu", FirstAvailable: []resourcev1.DeviceSubRequest{{Name: "big", DeviceClassName: "gpu.example.com"}}}}}}}}},
		{name: "ResourceSlice", want: `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"generation":1,"name":"defaulted-slice"},"spec":{"devices":[{"name":"d0","taints":[{"effect":"NoSchedule","key":"example.com/k","timeAdded":"TIME"}]}],"driver":"gpu.example.com","nodeName":"n","pool":{"generation":1,"name":"p","resourceSliceCount":1}}}`, resource: "resourceslices", dryRun: true, obj: &resourcev1.ResourceSlice{ObjectMeta: om("defaulted-slice"), Spec: resourcev1.ResourceSliceSpec{
			Driver: "gpu.example.com", NodeName: ptr("n"), Pool: resourcev1.ResourcePool{Name: "p", Generation: 1, ResourceSliceCount: 1},
			Devices: []resourcev1.Device{{Name: "d0", Taints: []resourcev1.DeviceTaint{{Key: "example.com/k", Effect: resourcev1.DeviceTaintEffectNoSchedule}}}}}}},
		{name: "DeviceTaintRule", want: `{"apiVersion":"resource.k8s.io/v1","kind":"DeviceTaintRule","metadata":{"generation":1,"name":"defaulted-dtr"},"spec":{"deviceSelector":{"driver":"gpu.example.com"},"taint":{"effect":"NoExecute","key":"example.com/k","timeAdded":"TIME"}},"status":{}}`, resource: "devicetaintrules", dryRun: true, obj: &resourcev1.DeviceTaintRule{ObjectMeta: om("defaulted-dtr"), Spec: resourcev1.DeviceTaintRuleSpec{
			DeviceSelector: &resourcev1.DeviceTaintSelector{Driver: ptr("gpu.example.com")}, Taint: resourcev1.DeviceTaint{Key: "example.com/k", Effect: resourcev1.DeviceTaintEffectNoExecute}}}},
	}
}

func ptr[T any](v T) *T { return &v }

// groupVersionOf is the group/version of a typed object.
func groupVersionOf(e *env, obj runtime.Object) (string, string, string) {
	gvks, _, err := scheme.Default().ObjectKinds(obj)
	if err != nil || len(gvks) == 0 {
		e.Fatalf("kind of %T: %v", obj, err)
	}
	return gvks[0].Group, gvks[0].Version, gvks[0].Kind
}

// storedObject creates row's object and returns what the server stored
// (or, for a dry run, answered), as JSON-shaped content without the
// metadata servers assign, with the namespace, uid and allocated values
// replaced by placeholders.
func storedObject(e *env, row defaultingRow) map[string]any {
	e.Helper()
	group, version, kind := groupVersionOf(e, row.obj)
	namespaced := !row.dryRun
	req := e.c.Post().Group(group).Version(version).Resource(row.resource).Body(row.obj)
	if namespaced {
		req = req.Namespace(e.ns)
	}
	if row.dryRun {
		req = req.Param("dryRun", "All")
	}
	out, err := scheme.Default().New(schema.GroupVersionKind{Group: group, Version: version, Kind: kind})
	if err != nil {
		e.Fatal(err)
	}
	must(e, req.Do(e.ctx).Into(out))
	if !row.dryRun {
		name := out.(metav1.Object).GetName()
		must(e, e.c.Get().Group(group).Version(version).Namespace(e.ns).Resource(row.resource).Name(name).Do(e.ctx).Into(out))
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(out)
	if err != nil {
		e.Fatal(err)
	}
	md, _ := u["metadata"].(map[string]any)
	uid, _ := md["uid"].(string)
	for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields"} {
		delete(md, k)
	}
	if kind == "Service" {
		maskAllocated(u)
	}
	maskTimes(u)
	data, err := json.Marshal(u)
	if err != nil {
		e.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), e.ns, "NS")
	if uid != "" {
		text = strings.ReplaceAll(text, uid, "UID")
	}
	var m map[string]any
	must(e, json.Unmarshal([]byte(text), &m))
	return m
}

// maskTimes replaces the times servers stamp (a volume's phase transition,
// a device taint's) by a placeholder.
func maskTimes(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			if (k == "lastPhaseTransitionTime" || k == "timeAdded") && c != nil {
				t[k] = "TIME"
				continue
			}
			maskTimes(c)
		}
	case []any:
		for _, c := range t {
			maskTimes(c)
		}
	}
}

// serviceRange and nodePorts are what testenv's kube-apiserver allocates
// from.
var serviceRange = netip.MustParsePrefix("10.0.0.0/24")

// maskAllocated replaces the cluster IPs and node ports of a Service,
// which a real server picks at random, by placeholders once checked to
// be in range.
func maskAllocated(u map[string]any) {
	spec, _ := u["spec"].(map[string]any)
	ip := func(v any) any {
		if s, ok := v.(string); ok {
			if a, err := netip.ParseAddr(s); err == nil && serviceRange.Contains(a) {
				return "CLUSTER-IP"
			}
		}
		return v
	}
	port := func(v any) any {
		if n, ok := v.(int64); ok && n >= 30000 && n <= 32767 {
			return "NODE-PORT"
		}
		return v
	}
	if v, ok := spec["clusterIP"]; ok {
		spec["clusterIP"] = ip(v)
	}
	if ips, ok := spec["clusterIPs"].([]any); ok {
		for i := range ips {
			ips[i] = ip(ips[i])
		}
	}
	if v, ok := spec["healthCheckNodePort"]; ok {
		spec["healthCheckNodePort"] = port(v)
	}
	ports, _ := spec["ports"].([]any)
	for _, p := range ports {
		if pm, ok := p.(map[string]any); ok {
			if v, ok := pm["nodePort"]; ok {
				pm["nodePort"] = port(v)
			}
		}
	}
}

// fieldDiff lists the paths where got and want differ.
func fieldDiff(path string, got, want any, out *[]string) {
	gm, gok := got.(map[string]any)
	wm, wok := want.(map[string]any)
	if gok && wok {
		keys := map[string]bool{}
		for k := range gm {
			keys[k] = true
		}
		for k := range wm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			fieldDiff(path+"."+k, gm[k], wm[k], out)
		}
		return
	}
	gl, gok := got.([]any)
	wl, wok := want.([]any)
	if gok && wok && len(gl) == len(wl) {
		for i := range gl {
			fieldDiff(fmt.Sprintf("%s[%d]", path, i), gl[i], wl[i], out)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		*out = append(*out, fmt.Sprintf("%s: got %s, want %s", path, g, w))
	}
}

// Every kind the fake defaults (and a few kube-apiserver leaves alone) is
// stored as kube-apiserver stores it.
func builtinKindsAreStoredDefaulted(e *env) {
	for _, row := range defaultingRows() {
		got := storedObject(e, row)
		if row.want == "" {
			data, _ := json.Marshal(got)
			e.Errorf("%s: no captured object; got %s", row.name, data)
			continue
		}
		var want map[string]any
		must(e, json.Unmarshal([]byte(row.want), &want))
		var diffs []string
		fieldDiff("", got, want, &diffs)
		if len(diffs) > 0 {
			data, _ := json.Marshal(got)
			e.Errorf("%s differs from kube-apiserver's:\n  %s\ngot %s", row.name, strings.Join(diffs, "\n  "), data)
		}
	}
}

// A controller that compares the object it wants with the live one sees
// the defaults as a difference (and would update forever) unless it
// compares with its desired object as the server defaults it: a dry-run
// create answers exactly that, and then the comparison converges.
func desiredStateConverges(e *env) {
	desired := newDeployment("web", 2)
	var live appsv1.Deployment
	must(e, e.c.Post().Group("apps").Version("v1").Namespace(e.ns).Resource("deployments").Body(desired).Do(e.ctx).Into(&live))
	if equality.Semantic.DeepEqual(desired.Spec, live.Spec) {
		e.Fatal("the live spec equals the undefaulted desired spec: the server set no defaults")
	}
	for round := range 3 {
		var want appsv1.Deployment
		must(e, e.c.Post().Group("apps").Version("v1").Namespace(e.ns).Resource("deployments").Param("dryRun", "All").Body(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web-desired"}, Spec: desired.Spec}).Do(e.ctx).Into(&want))
		must(e, e.deploymentReq("GET", "web").Do(e.ctx).Into(&live))
		if equality.Semantic.DeepEqual(want.Spec, live.Spec) {
			if round > 0 {
				e.Fatalf("converged after %d updates, want none", round)
			}
			return
		}
		live.Spec = want.Spec
		must(e, e.deploymentReq("PUT", "web").Body(&live).Do(e.ctx).Into(&live))
	}
	e.Fatal("desired and live specs never converged")
}

// An update that leaves out what the Service registry allocated (cluster
// IPs, IP families, node ports) keeps the allocated values.
func serviceUpdateKeepsAllocated(e *env) {
	in := &corev1.Service{ObjectMeta: om("keep"), Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	var created corev1.Service
	must(e, e.c.Post().Namespace(e.ns).Resource("services").Body(in).Do(e.ctx).Into(&created))
	if created.Spec.ClusterIP == "" || created.Spec.Ports[0].NodePort == 0 || len(created.Spec.IPFamilies) == 0 || created.Spec.IPFamilyPolicy == nil {
		e.Fatalf("nothing allocated: %+v", created.Spec)
	}
	upd := in.DeepCopy()
	upd.ResourceVersion = created.ResourceVersion
	upd.Spec.Ports = append(upd.Spec.Ports, corev1.ServicePort{Name: "https", Port: 443})
	var got corev1.Service
	must(e, e.c.Put().Namespace(e.ns).Resource("services").Name("keep").Body(upd).Do(e.ctx).Into(&got))
	if got.Spec.ClusterIP != created.Spec.ClusterIP || !slices.Equal(got.Spec.ClusterIPs, created.Spec.ClusterIPs) ||
		!slices.Equal(got.Spec.IPFamilies, created.Spec.IPFamilies) || *got.Spec.IPFamilyPolicy != *created.Spec.IPFamilyPolicy {
		e.Fatalf("allocated values not kept: before %+v, after %+v", created.Spec, got.Spec)
	}
	if got.Spec.Ports[0].NodePort != created.Spec.Ports[0].NodePort {
		e.Fatalf("node port of http %d, was %d", got.Spec.Ports[0].NodePort, created.Spec.Ports[0].NodePort)
	}
	if np := got.Spec.Ports[1].NodePort; np < 30000 || np > 32767 || np == got.Spec.Ports[0].NodePort {
		e.Fatalf("node port of https %d, want a new one in 30000-32767", np)
	}
}

// Server-side apply, merge patch and update all store defaulted objects:
// a field a patch or update removes comes back with its default.
func everyWritePathDefaults(e *env) {
	apply := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"applied"},"spec":{"selector":{"matchLabels":{"app":"a"}},` +
		`"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"registry.example/app:1"}]}}}}`
	var d appsv1.Deployment
	must(e, e.c.Patch(types.ApplyPatchType).Group("apps").Version("v1").Namespace(e.ns).Resource("deployments").Name("applied").
		Param("fieldManager", "test").Body([]byte(apply)).Do(e.ctx).Into(&d))
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 || d.Spec.Template.Spec.Containers[0].ImagePullPolicy != corev1.PullIfNotPresent {
		e.Fatalf("applied Deployment not defaulted: %+v", d.Spec)
	}
	must(e, e.c.Patch(types.MergePatchType).Group("apps").Version("v1").Namespace(e.ns).Resource("deployments").Name("applied").
		Body([]byte(`{"spec":{"revisionHistoryLimit":null,"template":{"spec":{"dnsPolicy":null}}}}`)).Do(e.ctx).Into(&d))
	if d.Spec.RevisionHistoryLimit == nil || *d.Spec.RevisionHistoryLimit != 10 || d.Spec.Template.Spec.DNSPolicy != corev1.DNSClusterFirst {
		e.Fatalf("patched Deployment not defaulted: %+v", d.Spec)
	}
	d.Spec.ProgressDeadlineSeconds = nil
	d.Spec.Template.Spec.Containers[0].TerminationMessagePath = ""
	must(e, e.c.Put().Group("apps").Version("v1").Namespace(e.ns).Resource("deployments").Name("applied").Body(&d).Do(e.ctx).Into(&d))
	if d.Spec.ProgressDeadlineSeconds == nil || *d.Spec.ProgressDeadlineSeconds != 600 || d.Spec.Template.Spec.Containers[0].TerminationMessagePath != corev1.TerminationMessagePathDefault {
		e.Fatalf("updated Deployment not defaulted: %+v", d.Spec)
	}
}

// The fields defaulting sets belong to the writer in managedFields; what
// admission and the registry add on create (cluster IPs, tolerations,
// priority) belongs to no one.
func writerOwnsDefaultsNotAllocations(e *env) {
	owned := func(resource string, obj, out runtime.Object) string {
		e.Helper()
		must(e, e.c.Post().Namespace(e.ns).Resource(resource).Param("fieldManager", "writer").Body(obj).Do(e.ctx).Into(out))
		for _, mf := range out.(metav1.Object).GetManagedFields() {
			if mf.Manager == "writer" && mf.FieldsV1 != nil {
				return string(mf.FieldsV1.Raw)
			}
		}
		e.Fatalf("no managedFields entry of writer: %+v", out.(metav1.Object).GetManagedFields())
		return ""
	}
	svc := owned("services", &corev1.Service{ObjectMeta: om("owned"), Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}, &corev1.Service{})
	pod := owned("pods", newPod("owned", ""), &corev1.Pod{})
	for _, f := range []string{`"f:sessionAffinity"`, `"f:internalTrafficPolicy"`, `"f:type"`} {
		if !strings.Contains(svc, f) {
			e.Errorf("Service: writer does not own %s: %s", f, svc)
		}
	}
	for _, f := range []string{`"f:clusterIP"`, `"f:clusterIPs"`, `"f:ipFamilies"`, `"f:ipFamilyPolicy"`} {
		if strings.Contains(svc, f) {
			e.Errorf("Service: writer owns %s: %s", f, svc)
		}
	}
	for _, f := range []string{`"f:dnsPolicy"`, `"f:restartPolicy"`, `"f:terminationMessagePath"`, `"f:enableServiceLinks"`} {
		if !strings.Contains(pod, f) {
			e.Errorf("Pod: writer does not own %s: %s", f, pod)
		}
	}
	for _, f := range []string{`"f:tolerations"`, `"f:priority"`} {
		if strings.Contains(pod, f) {
			e.Errorf("Pod: writer owns %s: %s", f, pod)
		}
	}
}

// A new claim carries the protection finalizer, and deleting a claim no
// Pod uses removes it (kube-controller-manager's protection controller
// drops the finalizer).
func unusedClaimIsDeleted(e *env) {
	claim := &corev1.PersistentVolumeClaim{ObjectMeta: om("unused"), Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
	var out corev1.PersistentVolumeClaim
	must(e, e.c.Post().Namespace(e.ns).Resource("persistentvolumeclaims").Body(claim).Do(e.ctx).Into(&out))
	if !slices.Contains(out.Finalizers, "kubernetes.io/pvc-protection") {
		e.Fatalf("finalizers %v, want kubernetes.io/pvc-protection", out.Finalizers)
	}
	must(e, e.c.Delete().Namespace(e.ns).Resource("persistentvolumeclaims").Name("unused").Do(e.ctx).Error())
	if err := e.c.Get().Namespace(e.ns).Resource("persistentvolumeclaims").Name("unused").Do(e.ctx).Error(); !apierrors.IsNotFound(err) {
		e.Fatalf("get after delete: %v, want NotFound", err)
	}
}

// A CustomResourceDefinition is defaulted as kube-apiserver defaults it:
// singular name and list kind from the kind, conversion strategy None,
// port 443 for a conversion webhook's service. Dry-run creates, so the
// shared real server keeps nothing; the spec is compared (the status is
// the controllers').
func crdIsStoredDefaulted(e *env) {
	version := map[string]any{
		"name": "v1", "served": true, "storage": true,
		"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object"}},
	}
	for _, tc := range []struct {
		name       string
		conversion map[string]any
		want       string
	}{
		{"none", nil, `{"conversion":{"strategy":"None"}}`},
		{"webhook", map[string]any{"strategy": "Webhook", "webhook": map[string]any{
			"conversionReviewVersions": []any{"v1"},
			"clientConfig":             map[string]any{"service": map[string]any{"namespace": "default", "name": "conv"}},
		}}, `{"conversion":{"strategy":"Webhook","webhook":{"clientConfig":{"service":{"name":"conv","namespace":"default","port":443}},"conversionReviewVersions":["v1"]}}}`},
	} {
		plural := "defaulted" + tc.name + "s"
		spec := map[string]any{
			"group": widgetGroup, "scope": "Namespaced",
			"names":    map[string]any{"plural": plural, "kind": "Defaulted" + tc.name},
			"versions": []any{version},
		}
		if tc.conversion != nil {
			spec["conversion"] = tc.conversion
		}
		body, err := json.Marshal(map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": plural + "." + widgetGroup},
			"spec":     spec,
		})
		must(e, err)
		var got unstructured.Unstructured
		must(e, e.c.Post().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Param("dryRun", "All").
			Body(body).Do(e.ctx).Into(&got))
		var want map[string]any
		must(e, json.Unmarshal([]byte(`{"group":"`+widgetGroup+`","scope":"Namespaced",`+
			`"names":{"plural":"`+plural+`","singular":"defaulted`+tc.name+`","kind":"Defaulted`+tc.name+`","listKind":"Defaulted`+tc.name+`List"},`+
			`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}`), &want))
		var extra map[string]any
		must(e, json.Unmarshal([]byte(tc.want), &extra))
		maps.Copy(want, extra)
		// Through JSON, so numbers compare as the wanted ones decode.
		data, err := json.Marshal(got.Object["spec"])
		must(e, err)
		var gotSpec map[string]any
		must(e, json.Unmarshal(data, &gotSpec))
		var diffs []string
		fieldDiff("", gotSpec, want, &diffs)
		if len(diffs) > 0 {
			data, _ := json.Marshal(gotSpec)
			e.Errorf("%s: spec differs from kube-apiserver's:\n  %s\ngot %s", tc.name, strings.Join(diffs, "\n  "), data)
		}
	}
}
