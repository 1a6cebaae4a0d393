package sharding

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
)

// Label keys. A ring named r uses three:
//
//   - ShardLabel(r) ("shard.kubego.io/r") on each sharded object: the
//     identity of the member that owns it. Only the sharder sets it; the
//     owning member removes it when it acknowledges a drain.
//   - DrainLabel(r) ("drain.shard.kubego.io/r") on an object the sharder
//     wants to move: its owner must stop reconciling it and acknowledge by
//     removing both labels.
//   - RingLabel ("shard.kubego.io/ring") = r on each member's Lease, so the
//     sharder finds the members by a label selector.
const (
	labelPrefix      = "shard.kubego.io/"
	drainLabelPrefix = "drain.shard.kubego.io/"
	RingLabel        = labelPrefix + "ring"
)

// ShardLabel returns the label key naming the owner of an object in ring.
func ShardLabel(ring string) string { return labelPrefix + ring }

// DrainLabel returns the label key marking an object of ring for a move.
func DrainLabel(ring string) string { return drainLabelPrefix + ring }

// validRing reports why ring cannot name a ring: it becomes the name part
// of label keys, a label value and the prefix of Lease names.
func validRing(ring string) error {
	if ring == "" {
		return &ConfigError{Field: "Ring", Reason: "required"}
	}
	if ring == "ring" {
		return &ConfigError{Field: "Ring", Reason: `"ring" is reserved (it names the members' Lease label)`}
	}
	if errs := content.IsDNS1123Label(ring); len(errs) > 0 {
		return &ConfigError{Field: "Ring", Reason: strings.Join(errs, "; ")}
	}
	return nil
}

// validIdentity reports why id cannot name a member: it is a label value
// and part of a Lease name.
func validIdentity(id string) error {
	if id == "" {
		return &ConfigError{Field: "Identity", Reason: "required"}
	}
	if errs := content.IsDNS1123Label(id); len(errs) > 0 {
		return &ConfigError{Field: "Identity", Reason: strings.Join(errs, "; ")}
	}
	return nil
}

// leaseName is the name of the Lease of member id in ring.
func leaseName(ring, id string) string { return ring + "-" + id }
