package defaults

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

func TestPullPolicyFollowsImageTag(t *testing.T) {
	tests := []struct{ image, want string }{
		{"busybox", "Always"},
		{"busybox:latest", "Always"},
		{"busybox:1.36", "IfNotPresent"},
		{"registry.example:5000/team/app", "Always"},
		{"registry.example:5000/team/app:v2", "IfNotPresent"},
		{"localhost:5000/app", "Always"},
		{"app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "IfNotPresent"},
		{"app:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "Always"},
		{"Registry.Example/app", "Always"},
		{"registry.example/App", "IfNotPresent"},
		{"", "IfNotPresent"},
	}
	for _, tt := range tests {
		if got := pullPolicyFor(tt.image); string(got) != tt.want {
			t.Errorf("pullPolicyFor(%q) = %s, want %s", tt.image, got, tt.want)
		}
	}
}

func TestVolumeSourcesGetTheSameDefaultsInPodsAndPersistentVolumes(t *testing.T) {
	wantRBD := [3]string{"rbd", "admin", "/etc/ceph/keyring"}
	wantAzure := corev1.AzureDiskVolumeSource{CachingMode: ptrTo(corev1.AzureDataDiskCachingReadWrite), FSType: ptrTo("ext4"), ReadOnly: ptrTo(false), Kind: ptrTo(corev1.AzureSharedBlobDisk)}
	wantScaleIO := [2]string{"ThinProvisioned", "xfs"}

	v := corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{RBD: &corev1.RBDVolumeSource{}}}
	defaultVolume(&v)
	if got := [3]string{v.RBD.RBDPool, v.RBD.RadosUser, v.RBD.Keyring}; got != wantRBD {
		t.Errorf("pod RBD volume = %v, want %v", got, wantRBD)
	}
	v = corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{AzureDisk: &corev1.AzureDiskVolumeSource{}}}
	defaultVolume(&v)
	if diff := cmp.Diff(wantAzure, *v.AzureDisk); diff != "" {
		t.Errorf("pod Azure disk volume (-want +got):\n%s", diff)
	}
	v = corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{ScaleIO: &corev1.ScaleIOVolumeSource{}}}
	defaultVolume(&v)
	if got := [2]string{v.ScaleIO.StorageMode, v.ScaleIO.FSType}; got != wantScaleIO {
		t.Errorf("pod ScaleIO volume = %v, want %v", got, wantScaleIO)
	}

	pv := corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{RBD: &corev1.RBDPersistentVolumeSource{}}}
	defaultPVSpecSources(&pv)
	if got := [3]string{pv.RBD.RBDPool, pv.RBD.RadosUser, pv.RBD.Keyring}; got != wantRBD {
		t.Errorf("PV RBD source = %v, want %v", got, wantRBD)
	}
	pv = corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{AzureDisk: &corev1.AzureDiskVolumeSource{}}}
	defaultPVSpecSources(&pv)
	if diff := cmp.Diff(wantAzure, *pv.AzureDisk); diff != "" {
		t.Errorf("PV Azure disk source (-want +got):\n%s", diff)
	}
	pv = corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{ScaleIO: &corev1.ScaleIOPersistentVolumeSource{}}}
	defaultPVSpecSources(&pv)
	if got := [2]string{pv.ScaleIO.StorageMode, pv.ScaleIO.FSType}; got != wantScaleIO {
		t.Errorf("PV ScaleIO source = %v, want %v", got, wantScaleIO)
	}
}
