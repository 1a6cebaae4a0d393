package defaults

import (
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Defaulting of the GA kinds controllers write less often: API priority
// and fairness, dynamic resource allocation, volume attachments and pod
// certificate requests.

func defaultFlowSchema(f *flowcontrolv1.FlowSchema) {
	if f.Spec.MatchingPrecedence == 0 {
		f.Spec.MatchingPrecedence = 1000
	}
}

func defaultPriorityLevel(p *flowcontrolv1.PriorityLevelConfiguration) {
	if l := p.Spec.Limited; l != nil {
		if l.NominalConcurrencyShares == nil {
			l.NominalConcurrencyShares = ptrTo[int32](30)
		}
		if l.LendablePercent == nil {
			l.LendablePercent = ptrTo[int32](0)
		}
		if q := l.LimitResponse.Queuing; q != nil {
			if q.HandSize == 0 {
				q.HandSize = 8
			}
			if q.Queues == 0 {
				q.Queues = 64
			}
			if q.QueueLengthLimit == 0 {
				q.QueueLengthLimit = 50
			}
		}
	}
	if e := p.Spec.Exempt; e != nil {
		if e.NominalConcurrencyShares == nil {
			e.NominalConcurrencyShares = ptrTo[int32](0)
		}
		if e.LendablePercent == nil {
			e.LendablePercent = ptrTo[int32](0)
		}
	}
}

func defaultPodCertificateRequest(r *certificatesv1.PodCertificateRequest) {
	if r.Spec.MaxExpirationSeconds == nil {
		r.Spec.MaxExpirationSeconds = ptrTo[int32](86400)
	}
}

func defaultVolumeAttachment(a *storagev1.VolumeAttachment) {
	if s := a.Spec.Source.InlineVolumeSpec; s != nil {
		defaultPVSpecSources(s)
	}
}

// defaultPVSpecSources defaults what a volume spec's capacity and
// sources get, in a PersistentVolume or inline in a VolumeAttachment.
func defaultPVSpecSources(s *corev1.PersistentVolumeSpec) {
	roundResources(s.Capacity)
	if h := s.HostPath; h != nil && h.Type == nil {
		h.Type = ptrTo(corev1.HostPathUnset)
	}
	if i := s.ISCSI; i != nil && i.ISCSIInterface == "" {
		i.ISCSIInterface = "default"
	}
	if r := s.RBD; r != nil {
		defaultRBD(&r.RBDPool, &r.RadosUser, &r.Keyring)
	}
	defaultAzureDisk(s.AzureDisk)
	if sio := s.ScaleIO; sio != nil {
		defaultScaleIO(&sio.StorageMode, &sio.FSType)
	}
}

func defaultDeviceClaim(c *resourcev1.ResourceClaimSpec) {
	for i := range c.Devices.Requests {
		r := &c.Devices.Requests[i]
		if e := r.Exactly; e != nil {
			if e.AllocationMode == "" {
				e.AllocationMode = resourcev1.DeviceAllocationModeExactCount
			}
			if e.AllocationMode == resourcev1.DeviceAllocationModeExactCount && e.Count == 0 {
				e.Count = 1
			}
			defaultDeviceTolerations(e.Tolerations)
		}
		for j := range r.FirstAvailable {
			sr := &r.FirstAvailable[j]
			if sr.AllocationMode == "" {
				sr.AllocationMode = resourcev1.DeviceAllocationModeExactCount
			}
			if sr.AllocationMode == resourcev1.DeviceAllocationModeExactCount && sr.Count == 0 {
				sr.Count = 1
			}
			defaultDeviceTolerations(sr.Tolerations)
		}
	}
}

func defaultDeviceTolerations(ts []resourcev1.DeviceToleration) {
	for i := range ts {
		if ts[i].Operator == "" {
			ts[i].Operator = resourcev1.DeviceTolerationOpEqual
		}
	}
}

func defaultResourceClaim(c *resourcev1.ResourceClaim) {
	defaultDeviceClaim(&c.Spec)
	if a := c.Status.Allocation; a != nil {
		for i := range a.Devices.Results {
			defaultDeviceTolerations(a.Devices.Results[i].Tolerations)
		}
	}
}

// defaultDeviceTaint stamps a taint without a time with now.
func defaultDeviceTaint(t *resourcev1.DeviceTaint, now time.Time) {
	if t.TimeAdded == nil {
		t.TimeAdded = &metav1.Time{Time: now.Truncate(time.Second)}
	}
}
