// Package podlogs keeps the log content of containers for the stand-ins
// of the module's tests (the fake API server and the stand-in kubelet)
// and serves it as a kubelet serves containerLogs: tailLines, limitBytes
// and follow.
package podlogs

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"sync"
)

// Key names one container of one pod.
type Key struct{ Namespace, Pod, Container string }

// Store holds the log content of containers. The zero value is empty and
// ready; it is safe for concurrent use.
type Store struct {
	mu      sync.Mutex
	logs    map[Key][]byte
	changed chan struct{} // closed and replaced at each write
}

// Set replaces the log content of k.
func (s *Store) Set(k Key, content []byte) { s.write(k, content, false) }

// Append adds content to the log of k (what followers receive next).
func (s *Store) Append(k Key, content []byte) { s.write(k, content, true) }

func (s *Store) write(k Key, content []byte, appending bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.logs == nil {
		s.logs = map[Key][]byte{}
	}
	if appending {
		s.logs[k] = append(bytes.Clone(s.logs[k]), content...)
	} else {
		s.logs[k] = bytes.Clone(content)
	}
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// get returns the log of k and a channel closed at the next write.
func (s *Store) get(k Key) ([]byte, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.logs[k], s.changed
}

// Options are the parameters of one read, as a kubelet takes them.
type Options struct {
	Follow bool
	// TailLines keeps the last lines only (negative: all).
	TailLines int64
	// LimitBytes stops after that many bytes (zero or less: no limit).
	LimitBytes int64
}

// ParseOptions reads follow, tailLines and limitBytes from a query.
func ParseOptions(r *http.Request) Options {
	q := r.URL.Query()
	o := Options{TailLines: -1}
	o.Follow = q.Get("follow") == "true" || q.Get("follow") == "1"
	if n, err := strconv.ParseInt(q.Get("tailLines"), 10, 64); err == nil {
		o.TailLines = n
	}
	if n, err := strconv.ParseInt(q.Get("limitBytes"), 10, 64); err == nil {
		o.LimitBytes = n
	}
	return o
}

// Tail returns the last n lines of content (all for n < 0).
func Tail(content []byte, n int64) []byte {
	if n < 0 {
		return content
	}
	end := len(content)
	if end > 0 && content[end-1] == '\n' {
		end--
	}
	start := end
	for lines := int64(0); start > 0; start-- {
		if content[start-1] == '\n' {
			lines++
			if lines == n {
				break
			}
		}
	}
	if n == 0 {
		return nil
	}
	return content[start:]
}

// Serve writes the log of k to w as text/plain: the tail, bounded by
// LimitBytes, then with Follow what is appended until ctx ends or the
// limit is reached.
func (s *Store) Serve(ctx context.Context, w http.ResponseWriter, k Key, o Options) {
	content, changed := s.get(k)
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusOK)
	out := Tail(content, o.TailLines)
	left := o.LimitBytes
	write := func(b []byte) bool {
		if left > 0 {
			if int64(len(b)) >= left {
				_, _ = w.Write(b[:left])
				return false
			}
			left -= int64(len(b))
		}
		_, _ = w.Write(b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		return true
	}
	if !write(out) || !o.Follow {
		return
	}
	sent := len(content)
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
		content, changed = s.get(k)
		if len(content) < sent {
			sent = 0 // replaced: follow the new content from its start
		}
		if !write(content[sent:]) {
			return
		}
		sent = len(content)
	}
}
