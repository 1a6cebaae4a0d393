package fake

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubego/kubego/scheme"
)

func parseListOptions(req *request) (*metav1.ListOptions, error) {
	var lo metav1.ListOptions
	if err := scheme.ParameterCodec().DecodeParameters(req.r.URL.Query(), optionsGV, &lo); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	return &lo, nil
}

// filter selects objects of one request: namespace, labels, fields.
type filter struct {
	namespace string
	labels    labels.Selector
	fields    *fieldMatcher
}

func newFilter(req *request, lo *metav1.ListOptions) (*filter, error) {
	f := &filter{namespace: req.namespace, labels: labels.Everything()}
	if lo.LabelSelector != "" {
		sel, err := labels.Parse(lo.LabelSelector)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		f.labels = sel
	}
	fm, err := newFieldMatcher(req.res, lo.FieldSelector)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	f.fields = fm
	return f, nil
}

func (f *filter) matches(o *object) bool {
	if f.namespace != "" && o.key.namespace != f.namespace {
		return false
	}
	if !f.labels.Empty() && !f.labels.Matches(labels.Set(o.meta().GetLabels())) {
		return false
	}
	return f.fields.matches(o.u)
}

func (f *filter) selecting() bool { return !f.labels.Empty() || f.fields != nil }

func parseRV(s string) (uint64, error) {
	rv, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, apierrors.NewBadRequest(fmt.Sprintf("invalid resource version: %v", field.Invalid(field.NewPath("resourceVersion"), s, err.Error())))
	}
	return rv, nil
}

func invalidOpts(msg string, path string, value any) error {
	return apierrors.NewInvalid(metav1.SchemeGroupVersion.WithKind("ListOptions").GroupKind(), "", field.ErrorList{field.Forbidden(field.NewPath(path), msg)})
}

func tooLarge(rv, cur uint64) error {
	err := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", rv, cur), 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	return err
}

func tooOldRV(rv, oldest uint64) error {
	return apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", rv, oldest))
}

// continueExpired is kube-apiserver's answer to a continue token whose
// snapshot is gone: 410 Expired, carrying in metadata.continue a token
// that lists the rest from the same key at the newest resourceVersion.
func continueExpired(start key) error {
	err := apierrors.NewResourceExpired("The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. " +
		"Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.")
	err.ErrStatus.ListMeta.Continue = encodeContinueAt(latestRV, start)
	return err
}

func (s *Server) handleList(w http.ResponseWriter, req *request) error {
	lo, err := parseListOptions(req)
	if err != nil {
		return err
	}
	if lo.SendInitialEvents != nil {
		return invalidOpts("sendInitialEvents is forbidden for list", "sendInitialEvents", lo.SendInitialEvents)
	}
	f, err := newFilter(req, lo)
	if err != nil {
		return err
	}
	match := lo.ResourceVersionMatch
	if match != "" && lo.ResourceVersion == "" {
		return invalidOpts("resourceVersionMatch is forbidden unless resourceVersion is provided", "resourceVersionMatch", match)
	}
	if match != "" && lo.Continue != "" {
		return invalidOpts("resourceVersionMatch is forbidden when continue is provided", "resourceVersionMatch", match)
	}
	if match == metav1.ResourceVersionMatchExact && lo.ResourceVersion == "0" {
		return invalidOpts(`resourceVersionMatch "exact" is forbidden for resourceVersion "0"`, "resourceVersionMatch", match)
	}
	if match != "" && match != metav1.ResourceVersionMatchExact && match != metav1.ResourceVersionMatchNotOlderThan {
		return apierrors.NewInvalid(metav1.SchemeGroupVersion.WithKind("ListOptions").GroupKind(), "", field.ErrorList{field.NotSupported(field.NewPath("resourceVersionMatch"), match, []string{string(metav1.ResourceVersionMatchExact), string(metav1.ResourceVersionMatchNotOlderThan)})})
	}
	var (
		start    key
		hasStart bool
		tokenRV  int64
	)
	if lo.Continue != "" {
		if lo.ResourceVersion != "" && lo.ResourceVersion != "0" {
			return apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
		}
		rv, k, err := parseContinue(lo.Continue)
		if err != nil {
			return apierrors.NewBadRequest(err.Error())
		}
		tokenRV, start, hasStart = rv, k, true
	}

	s.mu.Lock()
	cur := s.st.rv
	at := cur
	switch {
	case hasStart && tokenRV == latestRV:
		// The token a 410 handed back: the rest of the list, as it is now.
	case hasStart:
		at = uint64(tokenRV)
		if at > cur {
			s.mu.Unlock()
			return apierrors.NewBadRequest("continue key is not valid: resource version is in the future")
		}
		if s.st.tooOld(at) {
			s.mu.Unlock()
			return continueExpired(start)
		}
	case lo.ResourceVersion == "" || lo.ResourceVersion == "0":
	default:
		rv, err := parseRV(lo.ResourceVersion)
		if err != nil {
			s.mu.Unlock()
			return err
		}
		exact := match == metav1.ResourceVersionMatchExact || (match == "" && lo.Limit > 0)
		if rv > cur {
			s.mu.Unlock()
			return tooLarge(rv, cur)
		}
		if exact {
			if s.st.tooOld(rv) {
				s.mu.Unlock()
				return tooOldRV(rv, s.st.dropped+1)
			}
			at = rv
		}
	}
	snap := s.st.snapshot(req.res, at)
	s.mu.Unlock()

	for _, o := range snap {
		if err := convErrOf(o); err != nil {
			return err
		}
	}
	all := make([]*object, 0, len(snap))
	for k, o := range snap {
		if hasStart && k.less(start) {
			continue
		}
		all = append(all, o)
	}
	sortObjects(all)
	limit := lo.Limit
	if lo.ResourceVersion == "0" && !hasStart {
		// kube-apiserver answers a list at resourceVersion 0 from its
		// watch cache, which ignores limit: one page of everything.
		limit = 0
	}
	items, lm := page(all, f, limit)
	lm.ResourceVersion = strconv.FormatUint(at, 10)
	if lm.Continue != "" {
		lm.Continue = encodeContinue(int64(at), items[len(items)-1].key)
	}
	req.writeList(w, lm, items)
	return nil
}

// page takes from all (sorted, from the page's first key on) the objects
// f selects, at most limit of them (zero: no limit). As kube-apiserver
// pages through storage, a page that is full continues (lm.Continue is
// set, to a placeholder the caller replaces) while any object follows
// its last one, selected or not: the next page may then be short, or
// empty. The count of remaining items is given for unfiltered lists only.
func page(all []*object, f *filter, limit int64) ([]*object, metav1.ListMeta) {
	var items []*object
	var lm metav1.ListMeta
	for i, o := range all {
		if limit > 0 && int64(len(items)) == limit {
			lm.Continue = "more"
			if !f.selecting() {
				rest := int64(len(all) - i)
				lm.RemainingItemCount = &rest
			}
			break
		}
		if f.matches(o) {
			items = append(items, o)
		}
	}
	return items, lm
}

// sortObjects orders objects by namespace, then name: the order of lists.
func sortObjects(items []*object) {
	slices.SortFunc(items, func(a, b *object) int {
		switch {
		case a.key.less(b.key):
			return -1
		case b.key.less(a.key):
			return 1
		}
		return 0
	})
}
