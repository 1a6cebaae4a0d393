package record

import (
	"strconv"
	"strings"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// seriesKey identifies isomorphic occurrences: the same regarding and
// related objects, type, reason, action and note. Occurrences with the same
// key within SeriesWindow of each other are one Event with a series.
type seriesKey struct {
	regarding, related objectKey
	typ                Type
	reason, action     string
	note               string
}

type seriesState int

const (
	idle     seriesState = iota // the server has every occurrence counted
	queued                      // waiting in Recorder.creates
	dirty                       // created; waiting in Recorder.dirty to write a higher count
	inflight                    // being written by the worker
)

// series is one Event and the occurrences folded into it. It keeps only
// what the Event is made of beyond the Recorder's options (its key, the
// objects' resourceVersions and field paths, its name and time), and the
// Event is built again for each write that needs it whole: a Recorder
// tracks thousands of series. The Recorder's lock guards every field.
type series struct {
	key            seriesKey
	regardingRV    string
	regardingField string
	relatedRV      string
	relatedField   string
	name           string    // of the Event; a new one if it must be created again
	eventTime      time.Time // the Event's eventTime
	count          int32     // occurrences observed
	// written is the count the server has; 0 until the Event is created.
	written   int32
	last      time.Time // last occurrence
	lastWrite time.Time
	state     seriesState
	attempts  int       // failed attempts of the pending write
	retryAt   time.Time // not before, after a failed attempt
	cached    bool      // in Recorder.cache
	// The links of Recorder.cache, while cached.
	hash       uint64
	hnext      *series // same hash
	prev, next *series // more and less recently seen
}

// namespace is the namespace of s's Event: the regarding object's, or
// "default" for a cluster-scoped one.
func (s *series) namespace() string {
	if s.key.regarding.namespace == "" {
		return metav1.NamespaceDefault
	}
	return s.key.regarding.namespace
}

// event builds s's Event for a create, without its series.
func (s *series) event(o *Options) *eventsv1.Event {
	ev := &eventsv1.Event{
		EventTime:           microTime(s.eventTime),
		ReportingController: o.ReportingController,
		ReportingInstance:   o.ReportingInstance,
		Action:              s.key.action,
		Reason:              s.key.reason,
		Regarding:           s.key.regarding.reference(s.regardingRV, s.regardingField),
		Note:                s.key.note,
		Type:                string(s.key.typ),
	}
	if s.key.related != (objectKey{}) {
		rel := s.key.related.reference(s.relatedRV, s.relatedField)
		ev.Related = &rel
	}
	ev.Namespace, ev.Name = s.namespace(), s.name
	return ev
}

// seriesValue is what the server should hold for s.
func (s *series) seriesValue() eventsv1.EventSeries {
	return eventsv1.EventSeries{Count: s.count, LastObservedTime: microTime(s.last)}
}

// eventName returns a name for an Event about obj: the object's name made a
// valid DNS subdomain, a dot and n in hex.
func eventName(obj string, n int64) string {
	suffix := "." + strconv.FormatInt(n, 16)
	var labels []string
	for _, label := range strings.Split(strings.ToLower(obj), ".") {
		label = strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
				return r
			}
			return '-'
		}, label)
		if label = strings.Trim(label, "-"); label != "" {
			labels = append(labels, label)
		}
	}
	prefix := strings.Join(labels, ".")
	if max := 253 - len(suffix); len(prefix) > max {
		prefix = strings.TrimRight(prefix[:max], "-.")
	}
	if prefix == "" {
		prefix = "event"
	}
	return prefix + suffix
}
