package fake

import (
	"bytes"
	"encoding/binary"
	"net/http"
	"slices"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// initialEventsEnd is the annotation of the bookmark that ends the initial
// events of a sendInitialEvents watch.
const initialEventsEnd = "k8s.io/initial-events-end"

// watcher writes one watch stream.
type watcher struct {
	w     http.ResponseWriter
	fl    http.Flusher
	proto bool
	req   *request
	f     *filter
	buf   bytes.Buffer
}

func (s *Server) handleWatch(w http.ResponseWriter, req *request) error {
	lo, err := parseListOptions(req)
	if err != nil {
		return err
	}
	if req.name != "" {
		if lo.FieldSelector != "" {
			lo.FieldSelector += ","
		}
		lo.FieldSelector += "metadata.name=" + req.name
	}
	f, err := newFilter(req, lo)
	if err != nil {
		return err
	}
	sie := lo.SendInitialEvents
	if sie != nil {
		if *sie && lo.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan {
			return invalidOpts("sendInitialEvents requires setting resourceVersionMatch to NotOlderThan", "resourceVersionMatch", lo.ResourceVersionMatch)
		}
	} else if lo.ResourceVersionMatch != "" {
		return invalidOpts("resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided", "resourceVersionMatch", lo.ResourceVersionMatch)
	}
	var reqRV uint64
	if lo.ResourceVersion != "" && lo.ResourceVersion != "0" {
		if reqRV, err = parseRV(lo.ResourceVersion); err != nil {
			return err
		}
	}
	initial := (sie != nil && *sie) || (sie == nil && reqRV == 0)

	s.mu.Lock()
	cur := s.st.rv
	from := reqRV
	var snap []*object
	var expired error
	switch {
	case initial:
		if reqRV > cur {
			s.mu.Unlock()
			return tooLarge(reqRV, cur)
		}
		from = cur
		for _, o := range s.st.data[req.res.gvr] {
			if f.matches(o) {
				snap = append(snap, o)
			}
		}
	case reqRV == 0:
		from = cur
	case s.st.tooOld(reqRV):
		expired = tooOldRV(reqRV, s.st.dropped+1)
	}
	s.mu.Unlock()

	wt := &watcher{w: w, req: req, f: f, proto: req.mt == mediaProtobuf}
	wt.fl, _ = w.(http.Flusher)
	if wt.proto {
		w.Header().Set("Content-Type", mediaProtobuf+";stream=watch")
	} else {
		w.Header().Set("Content-Type", mediaJSON)
	}
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(http.StatusOK)
	if expired != nil {
		wt.sendError(expired)
		return nil
	}
	slices.SortFunc(snap, func(a, b *object) int {
		switch {
		case a.key.less(b.key):
			return -1
		case b.key.less(a.key):
			return 1
		}
		return 0
	})
	for _, o := range snap {
		if !wt.send(watch.Added, o) {
			return nil
		}
	}
	// Without allowWatchBookmarks the initial events are sent with no
	// bookmark marking their end, as kube-apiserver does.
	if sie != nil && *sie && lo.AllowWatchBookmarks {
		if !wt.sendBookmark(from, true) {
			return nil
		}
	}
	wt.flush()

	ctx := req.r.Context()
	var timeout <-chan time.Time
	if lo.TimeoutSeconds != nil && *lo.TimeoutSeconds > 0 {
		t := time.NewTimer(time.Duration(*lo.TimeoutSeconds) * time.Second)
		defer t.Stop()
		timeout = t.C
	}
	var bookmarks <-chan time.Time
	if lo.AllowWatchBookmarks && s.opts.BookmarkInterval > 0 {
		t := time.NewTicker(s.opts.BookmarkInterval)
		defer t.Stop()
		bookmarks = t.C
	}
	for {
		s.mu.Lock()
		if s.st.tooOld(from) {
			oldest := s.st.dropped + 1
			s.mu.Unlock()
			wt.sendError(tooOldRV(from, oldest))
			return nil
		}
		evs := slices.Clone(s.st.since(from))
		notify := s.st.notify
		s.mu.Unlock()
		for _, ev := range evs {
			from = ev.rv
			if ev.obj.res != req.res {
				continue
			}
			typ, ok := wt.transition(ev)
			if ok && !wt.send(typ, ev.obj) {
				return nil
			}
		}
		if len(evs) > 0 {
			wt.flush()
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-s.closed:
			return nil
		case <-timeout:
			return nil
		case <-bookmarks:
			if !wt.sendBookmark(from, false) {
				return nil
			}
			wt.flush()
		case <-notify:
		}
	}
}

// transition maps a storage event to what a watcher with a selector sees.
func (wt *watcher) transition(ev event) (watch.EventType, bool) {
	now := ev.typ != watch.Deleted && wt.f.matches(ev.obj)
	was := ev.prev != nil && wt.f.matches(ev.prev)
	switch {
	case ev.typ == watch.Deleted:
		return watch.Deleted, was
	case was && now:
		return watch.Modified, true
	case now:
		return watch.Added, true
	case was:
		return watch.Deleted, true
	}
	return "", false
}

func (wt *watcher) flush() {
	if wt.fl != nil {
		wt.fl.Flush()
	}
}

func (wt *watcher) write(typ watch.EventType, jsonObj []byte, protoObj runtime.Object) bool {
	wt.buf.Reset()
	if wt.proto {
		var raw bytes.Buffer
		if err := protoSerializer.Encode(protoObj, &raw); err != nil {
			return false
		}
		ev := metav1.WatchEvent{Type: string(typ), Object: runtime.RawExtension{Raw: raw.Bytes()}}
		data, err := ev.Marshal()
		if err != nil {
			return false
		}
		var hdr [4]byte
		binary.BigEndian.PutUint32(hdr[:], uint32(len(data)))
		wt.buf.Write(hdr[:])
		wt.buf.Write(data)
	} else {
		wt.buf.WriteString(`{"type":"`)
		wt.buf.WriteString(string(typ))
		wt.buf.WriteString(`","object":`)
		wt.buf.Write(jsonObj)
		wt.buf.WriteString("}\n")
	}
	_, err := wt.w.Write(wt.buf.Bytes())
	return err == nil
}

func (wt *watcher) send(typ watch.EventType, o *object) bool {
	if wt.req.asMeta != "" {
		o = metadataOnly(o, wt.req.asMeta)
	}
	if wt.proto {
		t, err := o.typedObject()
		if err != nil {
			return false
		}
		return wt.write(typ, nil, t)
	}
	data, err := o.encodeJSON()
	if err != nil {
		return false
	}
	return wt.write(typ, data, nil)
}

func (wt *watcher) sendBookmark(rv uint64, end bool) bool {
	res := wt.req.res
	md := map[string]any{"resourceVersion": strconv.FormatUint(rv, 10), "creationTimestamp": nil}
	if end {
		md["annotations"] = map[string]any{initialEventsEnd: "true"}
	}
	u := map[string]any{"apiVersion": res.gvk.GroupVersion().String(), "kind": res.gvk.Kind, "metadata": md}
	if wt.proto {
		t := newTyped(res.gvk)
		if t == nil {
			return false
		}
		a, err := meta.Accessor(t)
		if err != nil {
			return false
		}
		a.SetResourceVersion(strconv.FormatUint(rv, 10))
		if end {
			a.SetAnnotations(map[string]string{initialEventsEnd: "true"})
		}
		t.GetObjectKind().SetGroupVersionKind(res.gvk)
		return wt.write(watch.Bookmark, nil, t)
	}
	return wt.send(watch.Bookmark, newObject(res, u, rv))
}

func (wt *watcher) sendError(err error) {
	st := toStatus(err)
	if wt.proto {
		wt.write(watch.Error, nil, st)
	} else {
		var buf bytes.Buffer
		_ = unstructuredJSON(st, &buf)
		wt.write(watch.Error, buf.Bytes(), nil)
	}
	wt.flush()
}

var _ = apierrors.IsGone
