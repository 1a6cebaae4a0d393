package defaults

import (
	"math"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Defaulting of the built-in kinds other than Pod, as kube-apiserver's
// defaulters of their GA versions do it.

func defaultDeployment(d *appsv1.Deployment) {
	if d.Spec.Replicas == nil {
		d.Spec.Replicas = ptrTo[int32](1)
	}
	st := &d.Spec.Strategy
	if st.Type == "" {
		st.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if st.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if st.RollingUpdate == nil {
			st.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		if st.RollingUpdate.MaxUnavailable == nil {
			st.RollingUpdate.MaxUnavailable = ptrTo(intstr.FromString("25%"))
		}
		if st.RollingUpdate.MaxSurge == nil {
			st.RollingUpdate.MaxSurge = ptrTo(intstr.FromString("25%"))
		}
	}
	if d.Spec.RevisionHistoryLimit == nil {
		d.Spec.RevisionHistoryLimit = ptrTo[int32](10)
	}
	if d.Spec.ProgressDeadlineSeconds == nil {
		d.Spec.ProgressDeadlineSeconds = ptrTo[int32](600)
	}
	defaultPodTemplate(&d.Spec.Template)
}

func defaultReplicaSet(r *appsv1.ReplicaSet) {
	if r.Spec.Replicas == nil {
		r.Spec.Replicas = ptrTo[int32](1)
	}
	defaultPodTemplate(&r.Spec.Template)
}

func defaultDaemonSet(d *appsv1.DaemonSet) {
	st := &d.Spec.UpdateStrategy
	if st.Type == "" {
		st.Type = appsv1.RollingUpdateDaemonSetStrategyType
	}
	if st.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if st.RollingUpdate == nil {
			st.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
		}
		if st.RollingUpdate.MaxUnavailable == nil {
			st.RollingUpdate.MaxUnavailable = ptrTo(intstr.FromInt32(1))
		}
		if st.RollingUpdate.MaxSurge == nil {
			st.RollingUpdate.MaxSurge = ptrTo(intstr.FromInt32(0))
		}
	}
	if d.Spec.RevisionHistoryLimit == nil {
		d.Spec.RevisionHistoryLimit = ptrTo[int32](10)
	}
	defaultPodTemplate(&d.Spec.Template)
}

func defaultStatefulSet(s *appsv1.StatefulSet) {
	if s.Spec.PodManagementPolicy == "" {
		s.Spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	}
	st := &s.Spec.UpdateStrategy
	if st.Type == "" {
		st.Type = appsv1.RollingUpdateStatefulSetStrategyType
		if st.RollingUpdate == nil {
			st.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
		}
	}
	if st.Type == appsv1.RollingUpdateStatefulSetStrategyType && st.RollingUpdate != nil {
		if st.RollingUpdate.Partition == nil {
			st.RollingUpdate.Partition = ptrTo[int32](0)
		}
		if st.RollingUpdate.MaxUnavailable == nil {
			st.RollingUpdate.MaxUnavailable = ptrTo(intstr.FromInt32(1))
		}
	}
	if s.Spec.PersistentVolumeClaimRetentionPolicy == nil {
		s.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	if p := s.Spec.PersistentVolumeClaimRetentionPolicy; p.WhenDeleted == "" {
		p.WhenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if p := s.Spec.PersistentVolumeClaimRetentionPolicy; p.WhenScaled == "" {
		p.WhenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if s.Spec.Replicas == nil {
		s.Spec.Replicas = ptrTo[int32](1)
	}
	if s.Spec.RevisionHistoryLimit == nil {
		s.Spec.RevisionHistoryLimit = ptrTo[int32](10)
	}
	defaultPodTemplate(&s.Spec.Template)
	for i := range s.Spec.VolumeClaimTemplates {
		defaultPVC(&s.Spec.VolumeClaimTemplates[i])
	}
}

func defaultReplicationController(rc *corev1.ReplicationController) {
	if t := rc.Spec.Template; t != nil && t.Labels != nil {
		if len(rc.Spec.Selector) == 0 {
			rc.Spec.Selector = t.Labels
		}
		if len(rc.Labels) == 0 {
			rc.Labels = t.Labels
		}
	}
	if rc.Spec.Replicas == nil {
		rc.Spec.Replicas = ptrTo[int32](1)
	}
	if rc.Spec.Template != nil {
		defaultPodTemplate(rc.Spec.Template)
	}
}

func defaultJob(j *batchv1.Job) {
	defaultJobSpec(&j.Spec)
	if l := j.Spec.Template.Labels; l != nil && len(j.Labels) == 0 {
		j.Labels = l
	}
}

func defaultJobSpec(s *batchv1.JobSpec) {
	if s.Completions == nil && s.Parallelism == nil {
		s.Completions = ptrTo[int32](1)
	}
	if s.Parallelism == nil {
		s.Parallelism = ptrTo[int32](1)
	}
	if s.BackoffLimit == nil {
		if s.BackoffLimitPerIndex != nil {
			s.BackoffLimit = ptrTo[int32](math.MaxInt32)
		} else {
			s.BackoffLimit = ptrTo[int32](6)
		}
	}
	if s.CompletionMode == nil {
		s.CompletionMode = ptrTo(batchv1.NonIndexedCompletion)
	}
	if s.Suspend == nil {
		s.Suspend = ptrTo(false)
	}
	if s.PodReplacementPolicy == nil {
		if s.PodFailurePolicy != nil {
			s.PodReplacementPolicy = ptrTo(batchv1.Failed)
		} else {
			s.PodReplacementPolicy = ptrTo(batchv1.TerminatingOrFailed)
		}
	}
	if s.ManualSelector == nil {
		s.ManualSelector = ptrTo(false)
	}
	if p := s.PodFailurePolicy; p != nil {
		for i := range p.Rules {
			for j := range p.Rules[i].OnPodConditions {
				if c := &p.Rules[i].OnPodConditions[j]; c.Status == "" {
					c.Status = corev1.ConditionTrue
				}
			}
		}
	}
	defaultPodTemplate(&s.Template)
}

func defaultCronJob(c *batchv1.CronJob) {
	if c.Spec.ConcurrencyPolicy == "" {
		c.Spec.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	if c.Spec.Suspend == nil {
		c.Spec.Suspend = ptrTo(false)
	}
	if c.Spec.SuccessfulJobsHistoryLimit == nil {
		c.Spec.SuccessfulJobsHistoryLimit = ptrTo[int32](3)
	}
	if c.Spec.FailedJobsHistoryLimit == nil {
		c.Spec.FailedJobsHistoryLimit = ptrTo[int32](1)
	}
	// The job template gets the pod template's defaults only: a Job's
	// own defaults are set when the Job is created from it.
	defaultPodTemplate(&c.Spec.JobTemplate.Spec.Template)
	if p := c.Spec.JobTemplate.Spec.PodFailurePolicy; p != nil {
		for i := range p.Rules {
			for j := range p.Rules[i].OnPodConditions {
				if cond := &p.Rules[i].OnPodConditions[j]; cond.Status == "" {
					cond.Status = corev1.ConditionTrue
				}
			}
		}
	}
}

func defaultService(s *corev1.Service) {
	sp := &s.Spec
	if sp.SessionAffinity == "" {
		sp.SessionAffinity = corev1.ServiceAffinityNone
	}
	if sp.SessionAffinity == corev1.ServiceAffinityNone {
		sp.SessionAffinityConfig = nil
	}
	if sp.SessionAffinity == corev1.ServiceAffinityClientIP {
		if c := sp.SessionAffinityConfig; c == nil || c.ClientIP == nil || c.ClientIP.TimeoutSeconds == nil {
			sp.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptrTo(corev1.DefaultClientIPServiceAffinitySeconds)}}
		}
	}
	if sp.Type == "" {
		sp.Type = corev1.ServiceTypeClusterIP
	}
	for i := range sp.Ports {
		p := &sp.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
		if p.TargetPort == intstr.FromInt32(0) || p.TargetPort == intstr.FromString("") {
			p.TargetPort = intstr.FromInt32(p.Port)
		}
	}
	external := sp.Type == corev1.ServiceTypeLoadBalancer || sp.Type == corev1.ServiceTypeNodePort ||
		(sp.Type == corev1.ServiceTypeClusterIP && len(sp.ExternalIPs) > 0)
	if external && sp.ExternalTrafficPolicy == "" {
		sp.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
	if sp.InternalTrafficPolicy == nil && (sp.Type == corev1.ServiceTypeNodePort || sp.Type == corev1.ServiceTypeLoadBalancer || sp.Type == corev1.ServiceTypeClusterIP) {
		sp.InternalTrafficPolicy = ptrTo(corev1.ServiceInternalTrafficPolicyCluster)
	}
	if sp.Type == corev1.ServiceTypeLoadBalancer {
		if sp.AllocateLoadBalancerNodePorts == nil {
			sp.AllocateLoadBalancerNodePorts = ptrTo(true)
		}
		for i, ing := range s.Status.LoadBalancer.Ingress {
			if ing.IP != "" && ing.IPMode == nil {
				s.Status.LoadBalancer.Ingress[i].IPMode = ptrTo(corev1.LoadBalancerIPModeVIP)
			}
		}
	}
}

// defaultSecret sets the type and, as kube-apiserver's conversion does,
// moves stringData into data.
func defaultSecret(s *corev1.Secret) {
	for k, v := range s.StringData {
		if s.Data == nil {
			s.Data = map[string][]byte{}
		}
		s.Data[k] = []byte(v)
	}
	s.StringData = nil
	if s.Type == "" {
		s.Type = corev1.SecretTypeOpaque
	}
}

func defaultPVC(c *corev1.PersistentVolumeClaim) {
	if c.Status.Phase == "" {
		c.Status.Phase = corev1.ClaimPending
	}
	defaultPVCSpec(&c.Spec)
	roundResources(c.Status.Capacity)
	roundResources(c.Status.AllocatedResources)
}

func defaultPV(v *corev1.PersistentVolume) {
	if v.Status.Phase == "" {
		v.Status.Phase = corev1.VolumePending
	}
	if v.Spec.PersistentVolumeReclaimPolicy == "" {
		v.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimRetain
	}
	if v.Spec.VolumeMode == nil {
		v.Spec.VolumeMode = ptrTo(corev1.PersistentVolumeFilesystem)
	}
	defaultPVSpecSources(&v.Spec)
}

func defaultNamespace(n *corev1.Namespace) {
	if n.Name != "" {
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		n.Labels[corev1.LabelMetadataName] = n.Name
	}
	if n.Status.Phase == "" {
		n.Status.Phase = corev1.NamespaceActive
	}
}

func defaultEndpoints(e *corev1.Endpoints) {
	for i := range e.Subsets {
		for j := range e.Subsets[i].Ports {
			if p := &e.Subsets[i].Ports[j]; p.Protocol == "" {
				p.Protocol = corev1.ProtocolTCP
			}
		}
	}
}

func defaultEndpointSlice(s *discoveryv1.EndpointSlice) {
	for i := range s.Ports {
		p := &s.Ports[i]
		if p.Name == nil {
			p.Name = ptrTo("")
		}
		if p.Protocol == nil {
			p.Protocol = ptrTo(corev1.ProtocolTCP)
		}
	}
}

func defaultNode(n *corev1.Node) {
	if n.Status.Allocatable == nil && n.Status.Capacity != nil {
		n.Status.Allocatable = n.Status.Capacity
	}
	roundResources(n.Status.Capacity)
	roundResources(n.Status.Allocatable)
}

func defaultLimitRange(l *corev1.LimitRange) {
	for i := range l.Spec.Limits {
		it := &l.Spec.Limits[i]
		if it.Type == corev1.LimitTypeContainer {
			if it.Default == nil {
				it.Default = corev1.ResourceList{}
			}
			if it.DefaultRequest == nil {
				it.DefaultRequest = corev1.ResourceList{}
			}
			for k, v := range it.Max {
				if _, ok := it.Default[k]; !ok {
					it.Default[k] = v.DeepCopy()
				}
			}
			for k, v := range it.Default {
				if _, ok := it.DefaultRequest[k]; !ok {
					it.DefaultRequest[k] = v.DeepCopy()
				}
			}
			for k, v := range it.Min {
				if _, ok := it.DefaultRequest[k]; !ok {
					it.DefaultRequest[k] = v.DeepCopy()
				}
			}
		}
		for _, rl := range []corev1.ResourceList{it.Max, it.Min, it.Default, it.DefaultRequest, it.MaxLimitRequestRatio} {
			roundResources(rl)
		}
	}
}

func defaultResourceQuota(q *corev1.ResourceQuota) {
	roundResources(q.Spec.Hard)
	roundResources(q.Status.Hard)
	roundResources(q.Status.Used)
}

func defaultHPAv2(h *autoscalingv2.HorizontalPodAutoscaler) {
	if h.Spec.MinReplicas == nil {
		h.Spec.MinReplicas = ptrTo[int32](1)
	}
	if len(h.Spec.Metrics) == 0 {
		h.Spec.Metrics = []autoscalingv2.MetricSpec{{
			Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricSource{
				Name:   corev1.ResourceCPU,
				Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptrTo[int32](80)},
			},
		}}
	}
	if b := h.Spec.Behavior; b != nil {
		b.ScaleUp = hpaRules(b.ScaleUp, &autoscalingv2.HPAScalingRules{
			StabilizationWindowSeconds: ptrTo[int32](0),
			SelectPolicy:               ptrTo(autoscalingv2.MaxChangePolicySelect),
			Policies: []autoscalingv2.HPAScalingPolicy{
				{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
				{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
			},
		})
		b.ScaleDown = hpaRules(b.ScaleDown, &autoscalingv2.HPAScalingRules{
			SelectPolicy: ptrTo(autoscalingv2.MaxChangePolicySelect),
			Policies: []autoscalingv2.HPAScalingPolicy{
				{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
			},
		})
	}
}

// hpaRules fills what from leaves out with the defaults in to.
func hpaRules(from, to *autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	if from == nil {
		return to
	}
	if from.SelectPolicy != nil {
		to.SelectPolicy = from.SelectPolicy
	}
	if from.StabilizationWindowSeconds != nil {
		to.StabilizationWindowSeconds = from.StabilizationWindowSeconds
	}
	if from.Policies != nil {
		to.Policies = from.Policies
	}
	if from.Tolerance != nil {
		to.Tolerance = from.Tolerance
	}
	return to
}

func defaultHPAv1(h *autoscalingv1.HorizontalPodAutoscaler) {
	if h.Spec.MinReplicas == nil {
		h.Spec.MinReplicas = ptrTo[int32](1)
	}
}

func defaultNetworkPolicy(p *networkingv1.NetworkPolicy) {
	if len(p.Spec.PolicyTypes) == 0 {
		p.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
		if len(p.Spec.Egress) != 0 {
			p.Spec.PolicyTypes = append(p.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
		}
	}
	for i := range p.Spec.Ingress {
		defaultPolicyPorts(p.Spec.Ingress[i].Ports)
	}
	for i := range p.Spec.Egress {
		defaultPolicyPorts(p.Spec.Egress[i].Ports)
	}
}

func defaultPolicyPorts(ps []networkingv1.NetworkPolicyPort) {
	for i := range ps {
		if ps[i].Protocol == nil {
			ps[i].Protocol = ptrTo(corev1.ProtocolTCP)
		}
	}
}

func defaultIngressClass(c *networkingv1.IngressClass) {
	if p := c.Spec.Parameters; p != nil && p.Scope == nil {
		p.Scope = ptrTo(networkingv1.IngressClassParametersReferenceScopeCluster)
	}
}

func defaultRoleRef(r *rbacv1.RoleRef) {
	if r.APIGroup == "" {
		r.APIGroup = rbacv1.GroupName
	}
}

func defaultSubjects(ss []rbacv1.Subject) {
	for i := range ss {
		s := &ss[i]
		if s.APIGroup == "" && (s.Kind == rbacv1.UserKind || s.Kind == rbacv1.GroupKind) {
			s.APIGroup = rbacv1.GroupName
		}
	}
}

func defaultStorageClass(c *storagev1.StorageClass) {
	if c.ReclaimPolicy == nil {
		c.ReclaimPolicy = ptrTo(corev1.PersistentVolumeReclaimDelete)
	}
	if c.VolumeBindingMode == nil {
		c.VolumeBindingMode = ptrTo(storagev1.VolumeBindingImmediate)
	}
}

func defaultCSIDriver(d *storagev1.CSIDriver) {
	s := &d.Spec
	for _, b := range []**bool{&s.PodInfoOnMount, &s.StorageCapacity, &s.RequiresRepublish, &s.SELinuxMount, &s.PreventPodSchedulingIfMissing} {
		if *b == nil {
			*b = ptrTo(false)
		}
	}
	if s.AttachRequired == nil {
		s.AttachRequired = ptrTo(true)
	}
	if s.FSGroupPolicy == nil {
		s.FSGroupPolicy = ptrTo(storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy)
	}
	if len(s.VolumeLifecycleModes) == 0 {
		s.VolumeLifecycleModes = []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent}
	}
}

func defaultPriorityClass(c *schedulingv1.PriorityClass) {
	if c.PreemptionPolicy == nil {
		c.PreemptionPolicy = ptrTo(corev1.PreemptLowerPriority)
	}
}

// webhookCommon are the fields validating and mutating webhooks share.
type webhookCommon struct {
	failurePolicy     **admissionregistrationv1.FailurePolicyType
	matchPolicy       **admissionregistrationv1.MatchPolicyType
	namespaceSelector **metav1.LabelSelector
	objectSelector    **metav1.LabelSelector
	timeoutSeconds    **int32
	clientConfig      *admissionregistrationv1.WebhookClientConfig
	rules             []admissionregistrationv1.RuleWithOperations
}

func (w webhookCommon) Default() {
	if *w.failurePolicy == nil {
		*w.failurePolicy = ptrTo(admissionregistrationv1.Fail)
	}
	if *w.matchPolicy == nil {
		*w.matchPolicy = ptrTo(admissionregistrationv1.Equivalent)
	}
	if *w.namespaceSelector == nil {
		*w.namespaceSelector = &metav1.LabelSelector{}
	}
	if *w.objectSelector == nil {
		*w.objectSelector = &metav1.LabelSelector{}
	}
	if *w.timeoutSeconds == nil {
		*w.timeoutSeconds = ptrTo[int32](10)
	}
	if s := w.clientConfig.Service; s != nil && s.Port == nil {
		s.Port = ptrTo[int32](443)
	}
	defaultRules(w.rules)
}

func defaultRules(rs []admissionregistrationv1.RuleWithOperations) {
	for i := range rs {
		if rs[i].Scope == nil {
			rs[i].Scope = ptrTo(admissionregistrationv1.AllScopes)
		}
	}
}

func defaultValidatingWebhooks(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		webhookCommon{&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, &w.ClientConfig, w.Rules}.Default()
	}
}

func defaultMutatingWebhooks(c *admissionregistrationv1.MutatingWebhookConfiguration) {
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		webhookCommon{&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, &w.ClientConfig, w.Rules}.Default()
		if w.ReinvocationPolicy == nil {
			w.ReinvocationPolicy = ptrTo(admissionregistrationv1.NeverReinvocationPolicy)
		}
	}
}

func defaultMatchResources(m *admissionregistrationv1.MatchResources) {
	if m == nil {
		return
	}
	if m.MatchPolicy == nil {
		m.MatchPolicy = ptrTo(admissionregistrationv1.Equivalent)
	}
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &metav1.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &metav1.LabelSelector{}
	}
	for _, rs := range [][]admissionregistrationv1.NamedRuleWithOperations{m.ResourceRules, m.ExcludeResourceRules} {
		for i := range rs {
			if rs[i].Scope == nil {
				rs[i].Scope = ptrTo(admissionregistrationv1.AllScopes)
			}
		}
	}
}
