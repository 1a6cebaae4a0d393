package fake

import (
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	"reflect"
	"slices"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
)

var namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// writeOpts are the parts of Create/Update/PatchOptions the server honours.
type writeOpts struct {
	manager string
	dryRun  bool
	// seed keeps the status of a created object (objects seeded through
	// Add arrive with the status a test wants them to have).
	seed bool
}

// checkKind fills in apiVersion/kind when absent and refuses another kind.
func checkKind(res *resource, u map[string]any) error {
	uu := unstructured.Unstructured{Object: u}
	gvk := uu.GroupVersionKind()
	if gvk.Kind == "" && gvk.Version == "" {
		uu.SetGroupVersionKind(res.gvk)
		return nil
	}
	if gvk != res.gvk {
		return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", gvk.GroupVersion(), res.gvk.GroupVersion()))
	}
	return nil
}

// checkNamespace enforces the namespace rules of a write: the body's
// namespace matches the URL, and the namespace exists and is not
// terminating. Caller holds s.mu.
func (s *Server) checkNamespace(req *request, u *unstructured.Unstructured, creating bool) error {
	if !req.res.namespaced {
		if u.GetNamespace() != "" {
			u.SetNamespace("")
		}
		return nil
	}
	if u.GetNamespace() == "" {
		u.SetNamespace(req.namespace)
	} else if u.GetNamespace() != req.namespace {
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	if !creating {
		return nil
	}
	ns := s.st.data[namespacesGVR][key{name: req.namespace}]
	if ns == nil {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, req.namespace)
	}
	if ns.meta().GetDeletionTimestamp() != nil {
		return apierrors.NewForbidden(req.res.groupResource(), u.GetName(),
			fmt.Errorf("unable to create new content in namespace %s because it is being terminated", req.namespace))
	}
	return nil
}

// create stores a new object. Caller holds s.mu. applied is the result of
// a server-side apply (its managedFields are final).
func (s *Server) create(req *request, u map[string]any, opts writeOpts, applied bool) (*object, error) {
	res := req.res
	if err := checkKind(res, u); err != nil {
		return nil, err
	}
	uu := &unstructured.Unstructured{Object: u}
	requested := uu.GetName()
	if uu.GetName() == "" {
		if gn := uu.GetGenerateName(); gn != "" {
			for range 8 {
				name := gn + rand.String(5)
				if s.st.get(res, key{req.namespaceFor(uu), name}) == nil {
					uu.SetName(name)
					break
				}
			}
		}
	}
	if uu.GetName() == "" {
		return nil, apierrors.NewInvalid(res.gvk.GroupKind(), "", field.ErrorList{field.Required(field.NewPath("metadata", "name"), "name or generateName is required")})
	}
	if req.name != "" && req.name != uu.GetName() {
		return nil, apierrors.NewBadRequest("the name of the object does not match the name on the URL")
	}
	if err := s.checkNamespace(req, uu, true); err != nil {
		return nil, err
	}
	k := key{uu.GetNamespace(), uu.GetName()}
	if s.st.get(res, k) != nil {
		return nil, apierrors.NewAlreadyExists(res.groupResource(), uu.GetName())
	}
	if uu.GetResourceVersion() != "" {
		return nil, apierrors.NewBadRequest("resourceVersion should not be set on objects to be created")
	}
	now := metav1.NewTime(s.clock.Now().Truncate(time.Second))
	uu.SetUID(uuid.NewUUID())
	uu.SetCreationTimestamp(now)
	uu.SetDeletionTimestamp(nil)
	uu.SetDeletionGracePeriodSeconds(nil)
	uu.SetGeneration(0)
	if res.generation {
		uu.SetGeneration(1)
	}
	prepareNew(res, u, opts)
	unlabelled := len(uu.GetLabels()) == 0
	u, err := s.normalize(res, u, nil)
	if err != nil {
		return nil, err
	}
	if res.gvr == crdGVR {
		if err := checkAPIApproval(u, nil); err != nil {
			return nil, err
		}
	}
	uu = &unstructured.Unstructured{Object: u}
	if !applied {
		if err := s.trackUpdate(res, "", nil, uu, opts.manager); err != nil {
			return nil, err
		}
	}
	if req.admits() {
		// The mutating webhooks see the object after the managed fields
		// are tracked (their changes belong to no manager), before the
		// registry fills in what it owns.
		a := newAdmission(req, admissionv1.Create, requested, opts.dryRun)
		before := withoutSystemFields(u)
		a.obj = before
		mutated, err := s.mutate(a)
		if err != nil {
			return nil, err
		}
		if !reflect.DeepEqual(mutated, before) {
			if u, err = s.afterCreateMutation(req, mutated, uu, opts); err != nil {
				return nil, err
			}
		}
		if err := s.stillFree(req, k); err != nil {
			return nil, err
		}
	}
	// What admission and the registry add comes after the managed fields,
	// as on kube-apiserver: the writer does not own it.
	if u, err = s.prepareCreate(res, u, unlabelled, now.Time); err != nil {
		return nil, err
	}
	uu = &unstructured.Unstructured{Object: u}
	if req.admits() {
		a := newAdmission(req, admissionv1.Create, requested, opts.dryRun)
		a.obj = u
		if err := s.validate(a); err != nil {
			return nil, err
		}
		if err := s.stillFree(req, k); err != nil {
			return nil, err
		}
	}
	if opts.dryRun {
		return newObject(res, u, 0), nil
	}
	rv := s.st.next()
	uu.SetResourceVersion(strconv.FormatUint(rv, 10))
	o := newObject(res, u, rv)
	s.put(watch.Added, o, nil)
	if res.gvr == crdGVR {
		s.crdCreated(o)
	}
	return o, nil
}

// namespaceFor is the namespace an object of the request lands in.
func (r *request) namespaceFor(u *unstructured.Unstructured) string {
	if !r.res.namespaced {
		return ""
	}
	if r.namespace != "" {
		return r.namespace
	}
	return u.GetNamespace()
}

// trackUpdate records a non-apply write in managedFields. live is nil on
// create. A write without a manager is attributed like kube-apiserver does
// when the client names none: to the User-Agent's program name (here,
// "unknown" when the request had none).
func (s *Server) trackUpdate(res *resource, sub string, live, u *unstructured.Unstructured, manager string) error {
	fm, err := s.fieldManager(res, sub)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	if live == nil {
		live = emptyObject(res)
	}
	// Like kube-apiserver, a write never fails because its managed fields
	// cannot be computed: they are reset instead.
	out := fm.UpdateNoErrors(live, u, manager)
	ou, ok := out.(*unstructured.Unstructured)
	if !ok {
		return apierrors.NewInternalError(fmt.Errorf("field manager returned %T", out))
	}
	u.SetManagedFields(ou.GetManagedFields())
	return nil
}

// update replaces old with the content u, applying the rules of the main
// resource or of subresource sub. Caller holds s.mu. applied means u comes
// from a server-side apply with final managedFields.
func (s *Server) update(req *request, old *object, u map[string]any, opts writeOpts, applied bool) (*object, error) {
	res := req.res
	if err := checkKind(res, u); err != nil {
		return nil, err
	}
	uu := &unstructured.Unstructured{Object: u}
	if uu.GetName() == "" {
		uu.SetName(req.name)
	} else if uu.GetName() != req.name {
		return nil, apierrors.NewBadRequest("the name of the object (" + uu.GetName() + ") does not match the name on the URL (" + req.name + ")")
	}
	if err := s.checkNamespace(req, uu, false); err != nil {
		return nil, err
	}
	if rv := uu.GetResourceVersion(); rv != "" && rv != strconv.FormatUint(old.rv, 10) {
		return nil, conflict(res, req.name)
	} else if rv == "" && !res.builtin && !applied {
		return nil, apierrors.NewInvalid(res.gvk.GroupKind(), req.name, field.ErrorList{field.Invalid(field.NewPath("metadata", "resourceVersion"), "0x0", "must be specified for an update")})
	}
	oldU := old.meta()
	switch p, isPart := res.part(req.sub); {
	case isPart:
		p.apply(u, old.u)
		uu = &unstructured.Unstructured{Object: u}
	case req.sub == "status":
		st, hasStatus := u["status"]
		// An apply to the status computed the managedFields of every
		// manager, this one's status entry included: keep them.
		mf, hasMF, _ := unstructured.NestedFieldNoCopy(u, "metadata", "managedFields")
		u = old.copy()
		if hasStatus {
			u["status"] = st
		} else {
			delete(u, "status")
		}
		if md, ok := u["metadata"].(map[string]any); ok && applied && hasMF {
			md["managedFields"] = mf
		}
		uu = &unstructured.Unstructured{Object: u}
	default:
		if keep, ok := mainKeeps[res.gvr.GroupResource()]; ok && res.builtin {
			keep.apply(u, old.u)
		}
		if res.status {
			if st, ok := old.u["status"]; ok {
				u["status"] = deepCopyValue(st)
			} else {
				delete(u, "status")
			}
		}
		if ts := oldU.GetDeletionTimestamp(); ts != nil {
			for _, f := range uu.GetFinalizers() {
				if !slices.Contains(oldU.GetFinalizers(), f) {
					return nil, apierrors.NewInvalid(res.gvk.GroupKind(), req.name, field.ErrorList{field.Forbidden(field.NewPath("metadata", "finalizers"), "no new finalizers can be added if the object is being deleted, found new finalizers []string{\""+f+"\"}")})
				}
			}
		}
	}
	uu.SetUID(oldU.GetUID())
	uu.SetCreationTimestamp(oldU.GetCreationTimestamp())
	uu.SetDeletionTimestamp(oldU.GetDeletionTimestamp())
	uu.SetDeletionGracePeriodSeconds(oldU.GetDeletionGracePeriodSeconds())
	uu.SetGeneration(oldU.GetGeneration())
	uu.SetResourceVersion(oldU.GetResourceVersion())
	if req.sub == "" && !applied {
		// A client that sends no managedFields keeps the live ones.
		if _, ok, _ := unstructured.NestedFieldNoCopy(u, "metadata", "managedFields"); !ok {
			uu.SetManagedFields(oldU.GetManagedFields())
		}
	}
	u, err := s.normalize(res, u, old.u)
	if err != nil {
		return nil, err
	}
	if res.gvr == daemonSetsGVR && req.sub == "" {
		keepTemplateGeneration(&unstructured.Unstructured{Object: u}, old.u)
	}
	if res.gvr == crdGVR && req.sub == "" {
		if err := checkAPIApproval(u, old.u); err != nil {
			return nil, err
		}
	}
	uu = &unstructured.Unstructured{Object: u}
	if res.generation && specChanged(res, old.u, u) {
		uu.SetGeneration(oldU.GetGeneration() + 1)
	}
	if !applied {
		if err := s.trackUpdate(res, req.sub, oldU, uu, opts.manager); err != nil {
			return nil, err
		}
	}
	if req.admits() {
		a := newAdmission(req, admissionv1.Update, req.name, opts.dryRun)
		a.obj, a.old = u, old.u
		mutated, err := s.mutate(a)
		if err != nil {
			return nil, err
		}
		if !reflect.DeepEqual(mutated, u) {
			if u, err = s.afterUpdateMutation(req, old, mutated, u); err != nil {
				return nil, err
			}
			uu = &unstructured.Unstructured{Object: u}
		}
		if s.st.get(res, old.key) != old {
			return nil, conflict(res, req.name)
		}
	}
	if res.gvr == servicesGVR && req.sub == "" {
		if u, err = s.allocateService(u, old.u); err != nil {
			return nil, err
		}
		uu = &unstructured.Unstructured{Object: u}
	}
	if req.admits() {
		a := newAdmission(req, admissionv1.Update, req.name, opts.dryRun)
		a.obj, a.old = u, old.u
		if err := s.validate(a); err != nil {
			return nil, err
		}
		if s.st.get(res, old.key) != old {
			return nil, conflict(res, req.name)
		}
	}
	if reflect.DeepEqual(u, old.u) {
		return old, nil // no-op: no new resourceVersion, no event
	}
	if opts.dryRun {
		return newObject(res, u, old.rv), nil
	}
	if uu.GetDeletionTimestamp() != nil && len(uu.GetFinalizers()) == 0 && !gracefulPod(res, old) {
		// Like kube-apiserver, the write that clears the last finalizer
		// is not stored: the object is deleted as it was (one DELETED
		// event) and the client gets its content at the deletion's rv.
		gone := s.remove(old)
		uu.SetResourceVersion(strconv.FormatUint(gone.rv, 10))
		return newObject(res, u, gone.rv), nil
	}
	rv := s.st.next()
	uu.SetResourceVersion(strconv.FormatUint(rv, 10))
	o := newObject(res, u, rv)
	s.put(watch.Modified, o, old)
	if res.gvr == crdGVR {
		s.crdUpdated(o)
	}
	return o, nil
}

func conflict(res *resource, name string) error {
	return apierrors.NewConflict(res.groupResource(), name, fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
}

// specChanged reports whether anything but metadata and status differs.
func specChanged(res *resource, a, b map[string]any) bool {
	for k, v := range a {
		if k == "metadata" || (k == "status" && res.status) {
			continue
		}
		if !reflect.DeepEqual(v, b[k]) {
			return true
		}
	}
	for k := range b {
		if k == "metadata" || (k == "status" && res.status) {
			continue
		}
		if _, ok := a[k]; !ok {
			return true
		}
	}
	return false
}

func deepCopyValue(v any) any { return runtime.DeepCopyJSONValue(v) }

// gracefulPod reports whether o is a pod bound to a node that a kubelet
// would still have to stop: kube-apiserver keeps it until then.
func gracefulPod(res *resource, o *object) bool {
	if res.gvk.Group != "" || res.gvk.Kind != "Pod" {
		return false
	}
	g := o.meta().GetDeletionGracePeriodSeconds()
	return g != nil && *g > 0
}

// remove deletes o for good and cascades to its dependents and, for a
// namespace being emptied, finalizes it. Caller holds s.mu.
func (s *Server) remove(o *object) *object {
	u := o.copy()
	uu := &unstructured.Unstructured{Object: u}
	rv := s.st.next()
	uu.SetResourceVersion(strconv.FormatUint(rv, 10))
	gone := newObject(o.res, u, rv)
	s.put(watch.Deleted, gone, o)
	if o.res.gvr == crdGVR {
		s.crdDeleted(o)
	}
	s.collectDependents(o.meta().GetUID())
	if o.res.namespaced {
		s.maybeFinalizeNamespace(o.key.namespace)
	}
	return gone
}

// deleteOpts are the parts of DeleteOptions the server honours.
type deleteOpts struct {
	propagation metav1.DeletionPropagation
	gracePeriod *int64
	precondUID  *types.UID
	precondRV   *string
	dryRun      bool
}

// delete deletes o, or marks it for deletion when finalizers (or a kubelet)
// must run first. It returns the object as answered to the client.
// Caller holds s.mu.
func (s *Server) delete(o *object, opts deleteOpts) (*object, error) {
	res := o.res
	m := o.meta()
	if opts.precondUID != nil && *opts.precondUID != m.GetUID() {
		return nil, apierrors.NewConflict(res.groupResource(), o.key.name, fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *opts.precondUID, m.GetUID()))
	}
	if opts.precondRV != nil && *opts.precondRV != m.GetResourceVersion() {
		return nil, apierrors.NewConflict(res.groupResource(), o.key.name, fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *opts.precondRV, m.GetResourceVersion()))
	}
	if opts.dryRun {
		return o, nil
	}
	finalizers := m.GetFinalizers()
	// The protection controller of kube-controller-manager removes the
	// finalizer of a claim or volume nothing uses: at once here.
	protected := false
	if p := protectionFinalizer(res); p != "" && slices.Contains(finalizers, p) {
		finalizers = slices.DeleteFunc(slices.Clone(finalizers), func(f string) bool { return f == p })
		protected = true
	}
	var grace int64
	if res.gvk.Group == "" && res.gvk.Kind == "Pod" {
		grace = podGrace(o, opts.gracePeriod)
	}
	if res.gvr == namespacesGVR {
		return s.deleteNamespace(o), nil
	}
	switch opts.propagation {
	case metav1.DeletePropagationOrphan:
		s.orphanDependents(m.GetUID())
	case metav1.DeletePropagationForeground:
		s.collectDependents(m.GetUID())
	}
	if len(finalizers) == 0 && grace == 0 {
		return s.remove(o), nil
	}
	if m.GetDeletionTimestamp() != nil {
		return o, nil
	}
	u := o.copy()
	uu := &unstructured.Unstructured{Object: u}
	now := metav1.NewTime(s.clock.Now().Add(time.Duration(grace) * time.Second).Truncate(time.Second))
	uu.SetDeletionTimestamp(&now)
	uu.SetDeletionGracePeriodSeconds(&grace)
	if protected {
		uu.SetFinalizers(finalizers)
	}
	rv := s.st.next()
	uu.SetResourceVersion(strconv.FormatUint(rv, 10))
	no := newObject(res, u, rv)
	s.put(watch.Modified, no, o)
	return no, nil
}

// podGrace is the grace period of a pod deletion: zero for a pod no kubelet
// runs (unscheduled or finished), else the request's or the pod's.
func podGrace(o *object, req *int64) int64 {
	node, _, _ := unstructured.NestedString(o.u, "spec", "nodeName")
	phase, _, _ := unstructured.NestedString(o.u, "status", "phase")
	if node == "" || phase == "Succeeded" || phase == "Failed" {
		return 0
	}
	if req != nil {
		return max(*req, 0)
	}
	if g, ok, _ := unstructured.NestedInt64(o.u, "spec", "terminationGracePeriodSeconds"); ok {
		return max(g, 0)
	}
	return 30
}

// dependents returns the stored objects that name uid as an owner.
func (s *Server) dependents(uid types.UID) []*object {
	var out []*object
	for _, m := range s.st.data {
		for _, o := range m {
			for _, ref := range o.meta().GetOwnerReferences() {
				if ref.UID == uid {
					out = append(out, o)
					break
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b *object) int {
		if a.key.less(b.key) {
			return -1
		}
		if b.key.less(a.key) {
			return 1
		}
		return 0
	})
	return out
}

// collectDependents does the garbage collector's job for a deleted owner
// (background propagation): each dependent with no other live owner is
// deleted; one with other owners loses the reference.
func (s *Server) collectDependents(uid types.UID) {
	for _, d := range s.dependents(uid) {
		cur := s.st.get(d.res, d.key)
		if cur == nil {
			continue
		}
		var others []metav1.OwnerReference
		for _, ref := range cur.meta().GetOwnerReferences() {
			if ref.UID != uid && s.st.uids[ref.UID] != nil {
				others = append(others, ref)
			}
		}
		if len(others) > 0 {
			s.dropOwner(cur, uid)
			continue
		}
		_, _ = s.delete(cur, deleteOpts{propagation: metav1.DeletePropagationBackground})
	}
}

func (s *Server) orphanDependents(uid types.UID) {
	for _, d := range s.dependents(uid) {
		s.dropOwner(d, uid)
	}
}

func (s *Server) dropOwner(o *object, uid types.UID) {
	u := o.copy()
	uu := &unstructured.Unstructured{Object: u}
	var keep []metav1.OwnerReference
	for _, ref := range uu.GetOwnerReferences() {
		if ref.UID != uid {
			keep = append(keep, ref)
		}
	}
	uu.SetOwnerReferences(keep)
	rv := s.st.next()
	uu.SetResourceVersion(strconv.FormatUint(rv, 10))
	s.put(watch.Modified, newObject(o.res, u, rv), o)
}

// deleteNamespace marks ns Terminating and does the namespace
// controller's job: delete everything in it, then finalize it once empty.
func (s *Server) deleteNamespace(ns *object) *object {
	cur := ns
	if ns.meta().GetDeletionTimestamp() == nil {
		u := ns.copy()
		uu := &unstructured.Unstructured{Object: u}
		now := metav1.NewTime(s.clock.Now().Truncate(time.Second))
		uu.SetDeletionTimestamp(&now)
		zero := int64(0)
		uu.SetDeletionGracePeriodSeconds(&zero)
		_ = unstructured.SetNestedField(u, "Terminating", "status", "phase")
		rv := s.st.next()
		uu.SetResourceVersion(strconv.FormatUint(rv, 10))
		cur = newObject(ns.res, u, rv)
		s.put(watch.Modified, cur, ns)
	}
	name := ns.key.name
	for _, m := range s.st.data {
		var victims []*object
		for k, o := range m {
			if o.res.namespaced && k.namespace == name {
				victims = append(victims, o)
			}
		}
		for _, v := range victims {
			if cur := s.st.get(v.res, v.key); cur != nil && cur.meta().GetDeletionTimestamp() == nil {
				zero := int64(0)
				_, _ = s.delete(cur, deleteOpts{propagation: metav1.DeletePropagationBackground, gracePeriod: &zero})
			}
		}
	}
	if fin := s.maybeFinalizeNamespace(name); fin != nil {
		return fin
	}
	if now := s.st.data[namespacesGVR][key{name: name}]; now != nil {
		return now
	}
	return cur // finalized while its last content was deleted
}

// maybeFinalizeNamespace removes a terminating namespace that has become
// empty, returning its final state (nil if it stays).
func (s *Server) maybeFinalizeNamespace(name string) *object {
	ns := s.st.data[namespacesGVR][key{name: name}]
	if ns == nil || ns.meta().GetDeletionTimestamp() == nil {
		return nil
	}
	for _, m := range s.st.data {
		for k, o := range m {
			if o.res.namespaced && k.namespace == name {
				return nil
			}
		}
	}
	if len(ns.meta().GetFinalizers()) > 0 {
		return nil
	}
	return s.remove(ns)
}

// initPodStatus gives a new pod the status kube-apiserver gives it: phase
// Pending and its QoS class.
func initPodStatus(u map[string]any) {
	_ = unstructured.SetNestedField(u, "Pending", "status", "phase")
	_ = unstructured.SetNestedField(u, qosClass(u), "status", "qosClass")
}

// qosClass computes a pod's QoS class from its containers' requests and
// limits: BestEffort with none, Guaranteed when every container limits cpu
// and memory and requests (if given) equal the limits, else Burstable.
func qosClass(u map[string]any) string {
	containers, _, _ := unstructured.NestedSlice(u, "spec", "containers")
	inits, _, _ := unstructured.NestedSlice(u, "spec", "initContainers")
	some, guaranteed := false, len(containers) > 0
	for _, c := range append(containers, inits...) {
		cm, ok := c.(map[string]any)
		if !ok {
			continue
		}
		req, _, _ := unstructured.NestedStringMap(cm, "resources", "requests")
		lim, _, _ := unstructured.NestedStringMap(cm, "resources", "limits")
		if len(req) > 0 || len(lim) > 0 {
			some = true
		}
		for _, r := range []string{"cpu", "memory"} {
			l, ok := lim[r]
			if !ok {
				guaranteed = false
				continue
			}
			if q, ok := req[r]; ok && q != l {
				guaranteed = false
			}
		}
	}
	switch {
	case !some:
		return "BestEffort"
	case guaranteed:
		return "Guaranteed"
	}
	return "Burstable"
}
