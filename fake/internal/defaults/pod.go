package defaults

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
)

// Defaulting of pods and pod templates, as kube-apiserver's core/v1
// defaulters do it (with the feature gates of a default v1.37 server).

// defaultPod defaults a Pod: the pod template's defaults plus what only a
// Pod gets (requests copied from limits, enableServiceLinks, host ports
// under host networking, a negative grace period raised to 1).
func defaultPod(p *corev1.Pod) {
	if g := p.Spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		p.Spec.TerminationGracePeriodSeconds = ptrTo[int64](1)
	}
	for _, cs := range [][]corev1.Container{p.Spec.Containers, p.Spec.InitContainers} {
		for i := range cs {
			requestsFromLimits(&cs[i].Resources)
		}
	}
	if p.Spec.EnableServiceLinks == nil {
		p.Spec.EnableServiceLinks = ptrTo(corev1.DefaultEnableServiceLinks)
	}
	if p.Spec.HostNetwork {
		for _, cs := range [][]corev1.Container{p.Spec.Containers, p.Spec.InitContainers} {
			for i := range cs {
				for j := range cs[i].Ports {
					if cs[i].Ports[j].HostPort == 0 {
						cs[i].Ports[j].HostPort = cs[i].Ports[j].ContainerPort
					}
				}
			}
		}
	}
	defaultPodSpec(&p.Spec)
	defaultPodStatus(&p.Status)
}

// requestsFromLimits sets each request that is not given to its limit.
func requestsFromLimits(r *corev1.ResourceRequirements) {
	if r.Limits == nil {
		return
	}
	if r.Requests == nil {
		r.Requests = corev1.ResourceList{}
	}
	for k, v := range r.Limits {
		if _, ok := r.Requests[k]; !ok {
			r.Requests[k] = v.DeepCopy()
		}
	}
}

func defaultPodStatus(s *corev1.PodStatus) {
	switch {
	case s.PodIP != "" && len(s.PodIPs) == 0:
		s.PodIPs = []corev1.PodIP{{IP: s.PodIP}}
	case s.PodIP == "" && len(s.PodIPs) > 0:
		s.PodIP = s.PodIPs[0].IP
	case s.PodIP != "" && s.PodIPs[0].IP != s.PodIP:
		s.PodIPs = []corev1.PodIP{{IP: s.PodIP}}
	}
	for _, cs := range [][]corev1.ContainerStatus{s.InitContainerStatuses, s.ContainerStatuses, s.EphemeralContainerStatuses} {
		for i := range cs {
			roundResources(cs[i].AllocatedResources)
			if r := cs[i].Resources; r != nil {
				roundResources(r.Limits)
				roundResources(r.Requests)
			}
		}
	}
	roundResources(s.AllocatedResources)
	if r := s.Resources; r != nil {
		roundResources(r.Limits)
		roundResources(r.Requests)
	}
}

// defaultPodTemplate defaults the pod template of a workload.
func defaultPodTemplate(t *corev1.PodTemplateSpec) { defaultPodSpec(&t.Spec) }

// defaultPodSpec defaults what every pod spec gets, in a Pod or a
// template: policies, scheduler, security context, grace period, and
// its volumes and containers.
func defaultPodSpec(s *corev1.PodSpec) {
	if s.ServiceAccountName == "" {
		s.ServiceAccountName = s.DeprecatedServiceAccount
	}
	s.DeprecatedServiceAccount = s.ServiceAccountName
	if s.DNSPolicy == "" {
		s.DNSPolicy = corev1.DNSClusterFirst
	}
	if s.RestartPolicy == "" {
		s.RestartPolicy = corev1.RestartPolicyAlways
	}
	if s.SecurityContext == nil {
		s.SecurityContext = &corev1.PodSecurityContext{}
	}
	if s.TerminationGracePeriodSeconds == nil {
		s.TerminationGracePeriodSeconds = ptrTo[int64](corev1.DefaultTerminationGracePeriodSeconds)
	}
	if s.SchedulerName == "" {
		s.SchedulerName = corev1.DefaultSchedulerName
	}
	for i := range s.Volumes {
		defaultVolume(&s.Volumes[i])
	}
	for i := range s.InitContainers {
		defaultContainer(&s.InitContainers[i])
	}
	for i := range s.Containers {
		defaultContainer(&s.Containers[i])
	}
	for i := range s.EphemeralContainers {
		defaultContainer((*corev1.Container)(&s.EphemeralContainers[i].EphemeralContainerCommon))
	}
	roundResources(s.Overhead)
	if r := s.Resources; r != nil {
		roundResources(r.Limits)
		roundResources(r.Requests)
	}
}

// pullPolicyFor is the image pull policy of an image reference: Always
// for the tag latest (also when no tag or digest is given), else
// IfNotPresent.
func pullPolicyFor(image string) corev1.PullPolicy {
	if imageTag(image) == "latest" {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

// imageTag returns the tag of an image reference as kube-apiserver reads
// it: "latest" when it names neither a tag nor a digest, "" when it names
// only a digest or is not a valid reference (empty, or upper case in the
// repository).
func imageTag(image string) string {
	name, _, digested := strings.Cut(image, "@")
	if name == "" {
		return ""
	}
	repo, tag := name, ""
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		repo, tag = name[:i], name[i+1:]
	}
	// The registry host may have upper case letters, the path may not.
	if i := strings.Index(repo, "/"); i >= 0 {
		if host := repo[:i]; strings.ContainsAny(host, ".:") || host == "localhost" {
			repo = repo[i+1:]
		}
	}
	if strings.ToLower(repo) != repo {
		return ""
	}
	if tag == "" && !digested {
		return "latest"
	}
	return tag
}

func defaultContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = pullPolicyFor(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	for i := range c.Env {
		vf := c.Env[i].ValueFrom
		if vf == nil {
			continue
		}
		if vf.FieldRef != nil && vf.FieldRef.APIVersion == "" {
			vf.FieldRef.APIVersion = "v1"
		}
		if vf.FileKeyRef != nil && vf.FileKeyRef.Optional == nil {
			vf.FileKeyRef.Optional = ptrTo(false)
		}
	}
	roundResources(c.Resources.Limits)
	roundResources(c.Resources.Requests)
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		if p != nil {
			defaultProbe(p)
		}
	}
	if l := c.Lifecycle; l != nil {
		for _, h := range []*corev1.LifecycleHandler{l.PostStart, l.PreStop} {
			if h != nil && h.HTTPGet != nil {
				defaultHTTPGet(h.HTTPGet)
			}
		}
	}
}

func defaultProbe(p *corev1.Probe) {
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	if p.HTTPGet != nil {
		defaultHTTPGet(p.HTTPGet)
	}
	if p.GRPC != nil && p.GRPC.Service == nil {
		p.GRPC.Service = ptrTo("")
	}
}

func defaultHTTPGet(h *corev1.HTTPGetAction) {
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = corev1.URISchemeHTTP
	}
}

func defaultVolume(v *corev1.Volume) {
	if v.VolumeSource == (corev1.VolumeSource{}) {
		v.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
	s := &v.VolumeSource
	if s.Image != nil && s.Image.PullPolicy == "" {
		s.Image.PullPolicy = pullPolicyFor(s.Image.Reference)
	}
	if s.HostPath != nil && s.HostPath.Type == nil {
		s.HostPath.Type = ptrTo(corev1.HostPathUnset)
	}
	if s.Secret != nil && s.Secret.DefaultMode == nil {
		s.Secret.DefaultMode = ptrTo(corev1.SecretVolumeSourceDefaultMode)
	}
	if s.ConfigMap != nil && s.ConfigMap.DefaultMode == nil {
		s.ConfigMap.DefaultMode = ptrTo(corev1.ConfigMapVolumeSourceDefaultMode)
	}
	if s.DownwardAPI != nil {
		if s.DownwardAPI.DefaultMode == nil {
			s.DownwardAPI.DefaultMode = ptrTo(corev1.DownwardAPIVolumeSourceDefaultMode)
		}
		defaultFieldRefs(s.DownwardAPI.Items)
	}
	if s.Projected != nil {
		if s.Projected.DefaultMode == nil {
			s.Projected.DefaultMode = ptrTo(corev1.ProjectedVolumeSourceDefaultMode)
		}
		for i := range s.Projected.Sources {
			src := &s.Projected.Sources[i]
			if src.DownwardAPI != nil {
				defaultFieldRefs(src.DownwardAPI.Items)
			}
			if src.ServiceAccountToken != nil && src.ServiceAccountToken.ExpirationSeconds == nil {
				src.ServiceAccountToken.ExpirationSeconds = ptrTo[int64](3600)
			}
		}
	}
	if s.Ephemeral != nil && s.Ephemeral.VolumeClaimTemplate != nil {
		defaultPVCSpec(&s.Ephemeral.VolumeClaimTemplate.Spec)
	}
	if s.ISCSI != nil && s.ISCSI.ISCSIInterface == "" {
		s.ISCSI.ISCSIInterface = "default"
	}
	if r := s.RBD; r != nil {
		defaultRBD(&r.RBDPool, &r.RadosUser, &r.Keyring)
	}
	defaultAzureDisk(s.AzureDisk)
	if sio := s.ScaleIO; sio != nil {
		defaultScaleIO(&sio.StorageMode, &sio.FSType)
	}
}

func defaultFieldRefs(items []corev1.DownwardAPIVolumeFile) {
	for i := range items {
		if f := items[i].FieldRef; f != nil && f.APIVersion == "" {
			f.APIVersion = "v1"
		}
	}
}

// defaultPVCSpec defaults a claim's spec (in a claim, a StatefulSet's
// claim templates or an ephemeral volume).
func defaultPVCSpec(s *corev1.PersistentVolumeClaimSpec) {
	if s.VolumeMode == nil {
		s.VolumeMode = ptrTo(corev1.PersistentVolumeFilesystem)
	}
	roundResources(s.Resources.Limits)
	roundResources(s.Resources.Requests)
}

// roundResources rounds every quantity up to a whole milli-unit, as
// kube-apiserver does for resource lists.
func roundResources(l corev1.ResourceList) {
	for k, v := range l {
		if !v.RoundUp(apiresource.Milli) { // inexact: the value changed
			l[k] = v
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

// The volume sources below come in two Go types each (in a Pod's volumes
// and in a PersistentVolume) with the same fields and defaults, except
// AzureDisk, one type in both.

// defaultRBD defaults an RBD source's pool, user and keyring.
func defaultRBD(pool, user, keyring *string) {
	setIfEmpty(pool, "rbd")
	setIfEmpty(user, "admin")
	setIfEmpty(keyring, "/etc/ceph/keyring")
}

// defaultScaleIO defaults a ScaleIO source's storage mode and file system.
func defaultScaleIO(mode, fsType *string) {
	setIfEmpty(mode, "ThinProvisioned")
	setIfEmpty(fsType, "xfs")
}

// defaultAzureDisk defaults an Azure disk source (nil: nothing to do).
func defaultAzureDisk(d *corev1.AzureDiskVolumeSource) {
	if d == nil {
		return
	}
	if d.CachingMode == nil {
		d.CachingMode = ptrTo(corev1.AzureDataDiskCachingReadWrite)
	}
	if d.FSType == nil {
		d.FSType = ptrTo("ext4")
	}
	if d.ReadOnly == nil {
		d.ReadOnly = ptrTo(false)
	}
	if d.Kind == nil {
		d.Kind = ptrTo(corev1.AzureSharedBlobDisk)
	}
}

// setIfEmpty sets *p to v when it is empty.
func setIfEmpty(p *string, v string) {
	if *p == "" {
		*p = v
	}
}
