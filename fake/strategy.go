package fake

import (
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// strategy is what one kind's registry adds to the generic write path
// (write.go), as kube-apiserver's registry strategies and default
// admission plugins do. Every hook is optional; a kind without an entry in
// kindStrategies is written by the generic rules alone.
//
// Three per-kind rules outside the write path keep tables of their own,
// keyed by group and kind or resource for every served version: the
// fields a write of the main resource keeps (mainKeeps, parts.go), the
// kinds whose DELETE answers with the object (returnsDeletedObject,
// handlers.go) and the two groups serving Events (events.go).
type strategy struct {
	// createdWithStatus keeps the status a new object is written with
	// (a Node registers with its status); other kinds with a status
	// subresource start without one.
	createdWithStatus bool
	// prepareForCreate resets what a client cannot set on a new object,
	// before defaulting (not for objects seeded through Add).
	prepareForCreate func(u map[string]any)
	// prepareNamespace is prepareForCreate for objects seeded through Add
	// too.
	prepareAlways func(u map[string]any)
	// validate refuses what the kind's validation refuses beyond the
	// schema; old is nil on create. Called for writes of the main
	// resource.
	validate func(u, old map[string]any) error
	// validateRequest is validate for the writes of requests only: the
	// objects seeded through Add skip it.
	validateRequest func(u, old map[string]any) error
	// validateStatus refuses what the kind's validation refuses in a
	// write of the status subresource.
	validateStatus func(u, old map[string]any) error
	// admitCreate adds what admission and the registry add to a new
	// object after its managed fields are tracked (the writer does not own
	// it); unlabelled tells whether it came without labels.
	admitCreate func(s *Server, u map[string]any, unlabelled bool, now time.Time) (map[string]any, error)
	// prepareForUpdate carries over what the registry keeps across an
	// update of the main resource, after defaulting.
	prepareForUpdate func(u, old map[string]any)
	// admitUpdate is admitCreate for an update of the main resource.
	admitUpdate func(s *Server, u, old map[string]any) (map[string]any, error)
	// afterCreate, afterUpdate and afterDelete run once the object is
	// stored or removed (a CRD serves or stops serving its resources).
	afterCreate, afterUpdate, afterDelete func(s *Server, o *object)
	// protectionFinalizer is the finalizer the kind's protection
	// controller removes at once from an object being deleted.
	protectionFinalizer string
	// deleteGrace is the grace period of a deletion of o (req is the
	// request's); zero deletes at once.
	deleteGrace func(o *object, req *int64) int64
	// keepsUntilGone reports whether o, being deleted and without
	// finalizers, stays until something outside the server confirms (a
	// Pod bound to a node, for its kubelet).
	keepsUntilGone func(o *object) bool
	// delete replaces the generic deletion (a Namespace is emptied first).
	delete func(s *Server, o *object) *object
}

// kindStrategies names every kind the write path treats specially. The
// Server builds the table once (Server.strategies).
func kindStrategies() map[schema.GroupVersionResource]*strategy {
	return map[schema.GroupVersionResource]*strategy{
		podsGVR: {
			prepareForCreate: initPodStatus,
			admitCreate: func(s *Server, u map[string]any, _ bool, _ time.Time) (map[string]any, error) {
				return u, s.admitPod(u)
			},
			deleteGrace:    podGrace,
			keepsUntilGone: gracefulPod,
		},
		namespacesGVR: {
			prepareAlways: func(u map[string]any) {
				_ = unstructured.SetNestedField(u, "Active", "status", "phase")
				_ = unstructured.SetNestedStringSlice(u, []string{"kubernetes"}, "spec", "finalizers")
			},
			delete: (*Server).deleteNamespace,
		},
		nodesGVR: {
			createdWithStatus: true,
			admitCreate: func(_ *Server, u map[string]any, _ bool, _ time.Time) (map[string]any, error) {
				taintNotReady(u)
				return u, nil
			},
		},
		pvcsGVR: {
			admitCreate: func(_ *Server, u map[string]any, _ bool, _ time.Time) (map[string]any, error) {
				addFinalizer(u, pvcProtection)
				return u, nil
			},
			protectionFinalizer: pvcProtection,
		},
		pvsGVR: {
			admitCreate: func(_ *Server, u map[string]any, _ bool, now time.Time) (map[string]any, error) {
				addFinalizer(u, pvProtection)
				_ = unstructured.SetNestedField(u, now.UTC().Format(time.RFC3339), "status", "lastPhaseTransitionTime")
				return u, nil
			},
			protectionFinalizer: pvProtection,
		},
		deploymentsGVR: {
			validateRequest: validateReplicated(deploymentsGVR.GroupVersion().WithKind("Deployment"), deploymentRules, deploymentSpecExtra),
			validateStatus:  validateStatus(deploymentsGVR.GroupVersion().WithKind("Deployment"), deploymentCounts),
		},
		replicaSetsGVR: {
			validateRequest: validateReplicated(replicaSetsGVR.GroupVersion().WithKind("ReplicaSet"), replicaSetRules, nil),
			validateStatus:  validateStatus(replicaSetsGVR.GroupVersion().WithKind("ReplicaSet"), replicaSetCounts),
		},
		statefulSetsGVR: {
			validateRequest: validateReplicated(statefulSetsGVR.GroupVersion().WithKind("StatefulSet"), statefulSetRules, nil),
			validateStatus:  validateStatus(statefulSetsGVR.GroupVersion().WithKind("StatefulSet"), statefulSetCounts),
		},
		configMapsGVR: {
			validateRequest: validateConfigMap,
		},
		secretsGVR: {
			validateRequest: validateSecret,
		},
		cronJobsGVR: {
			validateRequest: validateCronJob,
		},
		daemonSetsGVR: {
			validateRequest: validateDaemonSet,
			validateStatus:  validateStatus(daemonSetsGVR.GroupVersion().WithKind("DaemonSet"), daemonSetCounts),
			admitCreate: func(_ *Server, u map[string]any, _ bool, _ time.Time) (map[string]any, error) {
				setTemplateGeneration(&unstructured.Unstructured{Object: u}, 1)
				return u, nil
			},
			prepareForUpdate: func(u, old map[string]any) {
				keepTemplateGeneration(&unstructured.Unstructured{Object: u}, old)
			},
		},
		jobsGVR: {
			validateRequest: validateJob,
			admitCreate: func(_ *Server, u map[string]any, unlabelled bool, _ time.Time) (map[string]any, error) {
				return selectJob(u, unlabelled)
			},
		},
		servicesGVR: {
			admitCreate: func(s *Server, u map[string]any, _ bool, _ time.Time) (map[string]any, error) {
				return s.allocateService(u, nil)
			},
			admitUpdate: (*Server).allocateService,
		},
		crdGVR: {
			validate:    validateCRD,
			afterCreate: (*Server).crdCreated,
			afterUpdate: (*Server).crdUpdated,
			afterDelete: (*Server).crdDeleted,
		},
	}
}

// noStrategy is the strategy of every other kind: the generic rules.
var noStrategy = &strategy{}

// strategyOf returns the strategy of res.
func (s *Server) strategyOf(res *resource) *strategy {
	if st := s.strategies[res.gvr]; st != nil {
		return st
	}
	return noStrategy
}
