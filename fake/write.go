package fake

import (
	"fmt"
	"strings"

	"reflect"
	"slices"
	"strconv"
	"time"

	admissionv1 "k8s.io/api/admission/v1"

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

	"github.com/kubego/kubego/scheme"
)

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
	if gvk.Kind != res.gvk.Kind && res.builtin && scheme.Default().Recognizes(gvk) {
		// kube-apiserver fails to convert the body to its internal type
		// of the resource's kind.
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: converting (%s.%s) to (%s.%s): unknown conversion",
			gvk.Kind, gvk.Version, res.gvk.Kind, gvk.Version, gvk.Kind, internalPackage(res.gvk.Group), res.gvk.Kind))
	}
	if gvk != res.gvk {
		return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", gvk.GroupVersion(), res.gvk.GroupVersion()))
	}
	return nil
}

// internalPackage is the name of the Go package of kube-apiserver's
// internal types of a group: "core" for the legacy group (and Events of
// events.k8s.io), else the group's first label.
func internalPackage(group string) string {
	if group == "" || group == "events.k8s.io" {
		return "core"
	}
	name, _, _ := strings.Cut(group, ".")
	return name
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
	s.prepareNew(res, u, opts)
	unlabelled := len(uu.GetLabels()) == 0
	u, err := s.normalize(req, res, u, nil)
	if err != nil {
		return nil, err
	}
	st := s.strategyOf(res)
	if st.validate != nil {
		if err := st.validate(u, nil); err != nil {
			return nil, err
		}
	}
	if st.validateRequest != nil && !opts.seed {
		// Objects seeded through Add are a test's fixture, the state it
		// starts from, not a request: they are stored as given.
		if err := st.validateRequest(u, nil); err != nil {
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
	if st.admitCreate != nil {
		if u, err = st.admitCreate(s, u, unlabelled, now.Time); err != nil {
			return nil, err
		}
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
	if st.afterCreate != nil {
		st.afterCreate(s, o)
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
		keepOnMainUpdate(res, u, old.u)
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
	u, err := s.normalize(req, res, u, old.u)
	if err != nil {
		return nil, err
	}
	st := s.strategyOf(res)
	if st.prepareForUpdate != nil && req.sub == "" {
		st.prepareForUpdate(u, old.u)
	}
	if st.validate != nil && req.sub == "" {
		if err := st.validate(u, old.u); err != nil {
			return nil, err
		}
	}
	// An object that never passed (a fixture seeded through Add) is
	// not held to the rules it was stored without.
	if st.validateRequest != nil && req.sub == "" && st.validateRequest(old.u, nil) == nil {
		if err := st.validateRequest(u, old.u); err != nil {
			return nil, err
		}
	}
	if st.validateStatus != nil && req.sub == "status" {
		if err := st.validateStatus(u, old.u); err != nil {
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
	if req.admits() && req.sub != "scale" {
		// (A write of the scale subresource met the mutating webhooks
		// as a Scale, in setScale.)
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
	if st.admitUpdate != nil && req.sub == "" {
		if u, err = st.admitUpdate(s, u, old.u); err != nil {
			return nil, err
		}
		uu = &unstructured.Unstructured{Object: u}
	}
	if req.admits() {
		a := newAdmission(req, admissionv1.Update, req.name, opts.dryRun)
		a.obj, a.old = u, old.u
		if req.sub == "scale" {
			a.kind = &scaleKind
			if a.obj, err = scaleMap(res, u, old.rv); err != nil {
				return nil, err
			}
			if a.old, err = scaleMap(res, old.u, old.rv); err != nil {
				return nil, err
			}
		}
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
	if uu.GetDeletionTimestamp() != nil && len(uu.GetFinalizers()) == 0 && (st.keepsUntilGone == nil || !st.keepsUntilGone(old)) {
		// Like kube-apiserver, the write that clears the last finalizer
		// is not stored: the object is deleted as it was (one DELETED
		// event, its content as last stored at the deletion's rv) and
		// the client gets the content it wrote at the rv it replaced.
		s.remove(old)
		return newObject(res, u, old.rv), nil
	}
	rv := s.st.next()
	uu.SetResourceVersion(strconv.FormatUint(rv, 10))
	o := newObject(res, u, rv)
	s.put(watch.Modified, o, old)
	if st.afterUpdate != nil {
		st.afterUpdate(s, o)
	}
	return o, nil
}

// keepOnMainUpdate puts back in u what a write of the main resource
// does not change in old: the fields its kind keeps and, for a resource
// with a status subresource, the status.
func keepOnMainUpdate(res *resource, u, old map[string]any) {
	if keep, ok := mainKeeps[res.gvr.GroupResource()]; ok && res.builtin {
		keep.apply(u, old)
	}
	if res.status {
		if st, ok := old["status"]; ok {
			u["status"] = deepCopyValue(st)
		} else {
			delete(u, "status")
		}
	}
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

// remove deletes o for good and cascades to its dependents and, for a
// namespace being emptied, finalizes it. Caller holds s.mu.
func (s *Server) remove(o *object) *object {
	u := o.copy()
	uu := &unstructured.Unstructured{Object: u}
	rv := s.st.next()
	uu.SetResourceVersion(strconv.FormatUint(rv, 10))
	gone := newObject(o.res, u, rv)
	s.put(watch.Deleted, gone, o)
	if st := s.strategyOf(o.res); st.afterDelete != nil {
		st.afterDelete(s, o)
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
		return nil, apierrors.NewConflict(schema.GroupResource{Group: res.gvk.Group, Resource: res.gvk.Kind}, o.key.name, fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *opts.precondUID, m.GetUID()))
	}
	if opts.precondRV != nil && *opts.precondRV != m.GetResourceVersion() {
		return nil, apierrors.NewConflict(schema.GroupResource{Group: res.gvk.Group, Resource: res.gvk.Kind}, o.key.name, fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *opts.precondRV, m.GetResourceVersion()))
	}
	if opts.dryRun {
		return o, nil
	}
	finalizers := m.GetFinalizers()
	// The protection controller of kube-controller-manager removes the
	// finalizer of a claim or volume nothing uses: at once here.
	st := s.strategyOf(res)
	protected := false
	if p := st.protectionFinalizer; p != "" && slices.Contains(finalizers, p) {
		finalizers = slices.DeleteFunc(slices.Clone(finalizers), func(f string) bool { return f == p })
		protected = true
	}
	var grace int64
	if st.deleteGrace != nil {
		grace = st.deleteGrace(o, opts.gracePeriod)
	}
	if st.delete != nil {
		return st.delete(s, o), nil
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
