package faults_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

// l7Run is run with the informer behind an L7 proxy on the shared plane.
func l7Run(t *testing.T) (*testenv.ControlPlane, *l7Proxy, run) {
	cp := testenv.Shared(t)
	p := newL7Proxy(t, cp)
	return cp, p, run{TruthCfg: cp.Config(), InfCfg: func(string) *rest.Config { return p.Config() }}
}

// injectOnNextWatch installs a frame rule for the next watch and cuts the
// current one so that the informer opens it at once.
func injectOnNextWatch(p *l7Proxy, frames func(i int, f []byte) ([]byte, bool)) *l7Rule {
	ru := p.add(&l7Rule{Match: isCMWatch, Times: 1, Frames: frames})
	p.srv.CloseClientConnections()
	return ru
}

// waitUsed waits until the rule has been applied (or ctx ends) and then a
// little more for its effect.
func waitUsed(ctx context.Context, ru *l7Rule, settle time.Duration) bool {
	for ru.used.Load() == 0 && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	sleepCtx(ctx, settle)
	return ru.used.Load() > 0
}

// Scenario 8: malformed watch frames. Each case corrupts the third frame
// of one watch; the informer must drop that watch, resume from its last
// resourceVersion and lose nothing.
func TestMalformedWatchFrames(t *testing.T) {
	cases := []struct {
		name string
		bad  func(f []byte) []byte // the bytes sent instead of frame f
	}{
		{"truncated object", func(f []byte) []byte { return nl(f[:len(f)/2]) }},
		{"garbage line", func(f []byte) []byte { return append([]byte("}}not json at all{{\n"), nl(f)...) }},
		{"unknown event type", func(f []byte) []byte {
			return nl(bytes.Replace(f, []byte(`"type":"`), []byte(`"type":"FROBNICATED`), 1))
		}},
		{"wrong kind", func(f []byte) []byte {
			return nl(bytes.Replace(bytes.Replace(f, []byte(`"kind":"ConfigMap"`), []byte(`"kind":"Secret"`), 1), []byte(`"data":`), []byte(`"stringData":`), 1))
		}},
		{"ERROR event that is not a Status", func(f []byte) []byte {
			var ev struct {
				Object json.RawMessage `json:"object"`
			}
			json.Unmarshal(f, &ev)
			b, _ := json.Marshal(map[string]any{"type": "ERROR", "object": ev.Object})
			return nl(b)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, p, r := l7Run(t)
			r.do(t, func(ctx context.Context, w *watched, wr *writer) {
				before := w.cnt.watches.Load()
				ru := injectOnNextWatch(p, func(i int, f []byte) ([]byte, bool) {
					if i == 2 {
						return tc.bad(f), false
					}
					return nl(f), false
				})
				if !waitUsed(ctx, ru, 3*time.Second) {
					t.Error("the malformed frame was never sent")
				}
				t.Logf("watches opened after the injection: %d", w.cnt.watches.Load()-before)
			})
		})
	}
}

func tooMany(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", "1")
	w.WriteHeader(http.StatusTooManyRequests)
	io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too many requests","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}`)
}

// Scenario 9: 429 with Retry-After: 1 on the first three LISTs and the
// first three watch starts. The client must wait as told and the informer
// sync, with no relist storm.
func TestTooManyRequests(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		name := "list"
		if streaming {
			name = "streaming watch"
		}
		t.Run(name, func(t *testing.T) {
			_, p, r := l7Run(t)
			r.Reflector.DisableStreaming = !streaming
			var start time.Time
			var synced time.Duration
			r.Setup = func() {
				p.add(&l7Rule{Match: isCMList, Times: 3, Respond: tooMany})
				p.add(&l7Rule{Match: isCMWatch, Times: 3, Respond: tooMany})
				start = time.Now()
			}
			r.do(t, func(ctx context.Context, w *watched, wr *writer) {
				synced = time.Since(start)
				// A later watch start is throttled too.
				ru := p.add(&l7Rule{Match: isCMWatch, Times: 3, Respond: tooMany})
				p.srv.CloseClientConnections()
				waitUsed(ctx, ru, 4*time.Second)
			})
			t.Logf("synced %s after the informer started; proxy saw %d LISTs and %d watches", synced.Round(10*time.Millisecond), p.lists.Load(), p.watches.Load())
			if synced < 2*time.Second {
				t.Errorf("synced after %s: Retry-After (3 × 1s) was not honoured", synced)
			}
		})
	}
}

// Scenario 10: an in-stream 500 (an ERROR event carrying an
// InternalError Status) ends a watch; the informer resumes without a
// relist.
func TestInStreamInternalError(t *testing.T) {
	_, p, r := l7Run(t)
	res := r.do(t, func(ctx context.Context, w *watched, wr *writer) {
		ru := injectOnNextWatch(p, func(i int, f []byte) ([]byte, bool) {
			if i == 2 {
				return nl([]byte(`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"etcd exploded","reason":"InternalError","code":500}}`)), true
			}
			return nl(f), false
		})
		waitUsed(ctx, ru, 3*time.Second)
	})
	if res.Lists+res.Streams > 1 {
		t.Errorf("an in-stream 500 caused %d full fetches, want only the initial one", res.Lists+res.Streams)
	}
}

// Scenario 11: a streaming initial list whose end bookmark never comes.
// The informer must give up after InitialEventsTimeout and LIST.
func TestStreamingEndBookmarkStripped(t *testing.T) {
	_, p, r := l7Run(t)
	r.Reflector.InitialEventsTimeout = 3 * time.Second
	var start time.Time
	var synced time.Duration
	r.Setup = func() {
		p.add(&l7Rule{Match: isStream, Frames: func(i int, f []byte) ([]byte, bool) {
			if bytes.Contains(f, []byte("k8s.io/initial-events-end")) {
				return nil, false
			}
			return nl(f), false
		}})
		start = time.Now()
	}
	res := r.do(t, func(ctx context.Context, w *watched, wr *writer) { synced = time.Since(start) })
	t.Logf("synced after %s", synced.Round(10*time.Millisecond))
	if res.Lists < 1 {
		t.Errorf("no LIST fallback: %d LISTs", res.Lists)
	}
}

// Scenario 12: duplicated and replayed watch events.
func TestDuplicatedAndReplayedEvents(t *testing.T) {
	t.Run("duplicated", func(t *testing.T) {
		_, p, r := l7Run(t)
		r.do(t, func(ctx context.Context, w *watched, wr *writer) {
			ru := injectOnNextWatch(p, func(i int, f []byte) ([]byte, bool) {
				return append(nl(f), nl(f)...), false
			})
			waitUsed(ctx, ru, 5*time.Second)
		})
	})
	t.Run("replayed", func(t *testing.T) {
		_, p, r := l7Run(t)
		r.do(t, func(ctx context.Context, w *watched, wr *writer) {
			var seen [][]byte
			ru := injectOnNextWatch(p, func(i int, f []byte) ([]byte, bool) {
				seen = append(seen, nl(f))
				if i == 20 {
					// Replay the first ten frames after the twentieth.
					var b []byte
					for _, s := range seen[:10] {
						if !bytes.Contains(s, []byte(`"BOOKMARK"`)) {
							b = append(b, s...)
						}
					}
					return append(nl(f), b...), false
				}
				return nl(f), false
			})
			waitUsed(ctx, ru, 5*time.Second)
		})
	})
}

// Scenario 7: hung responses (headers, then nothing) and slow LIST bodies.
func TestHungAndSlowResponses(t *testing.T) {
	t.Run("hung LIST", func(t *testing.T) {
		_, p, r := l7Run(t)
		r.Reflector.DisableStreaming = true
		r.Reflector.ListTimeout = 5 * time.Second
		r.Setup = func() {
			p.add(&l7Rule{Match: isCMList, Times: 1, Respond: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusOK)
				io.WriteString(w, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[`)
				http.NewResponseController(w).Flush()
				select {
				case <-r.Context().Done():
				case <-time.After(45 * time.Second):
				}
			}})
		}
		r.do(t, func(ctx context.Context, w *watched, wr *writer) {})
	})
	t.Run("hung watch", func(t *testing.T) {
		_, p, r := l7Run(t)
		r.Reflector.MinWatchTimeout = 2 * time.Second // timeoutSeconds in [2, 4)
		r.do(t, func(ctx context.Context, w *watched, wr *writer) {
			ru := p.add(&l7Rule{Match: func(r *http.Request) bool { return isCMWatch(r) && !isStream(r) }, Times: 1,
				Respond: func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusOK)
					http.NewResponseController(w).Flush()
					select {
					case <-r.Context().Done():
					case <-time.After(50 * time.Second):
					}
				}})
			p.srv.CloseClientConnections()
			waitUsed(ctx, ru, 5*time.Second)
		})
	})
	t.Run("slow LIST body", func(t *testing.T) {
		_, p, r := l7Run(t)
		r.Reflector.DisableStreaming = true
		r.Setup = func() {
			p.add(&l7Rule{Match: isCMList, Times: 1, Body: func(dst io.Writer, flush func(), src io.Reader) {
				buf := make([]byte, 256)
				for {
					n, err := src.Read(buf)
					if n > 0 {
						dst.Write(buf[:n])
						flush()
						time.Sleep(20 * time.Millisecond)
					}
					if err != nil {
						return
					}
				}
			}})
		}
		r.do(t, func(ctx context.Context, w *watched, wr *writer) {})
	})
}

var _ = strings.Contains
var _ = informer.ReflectorOptions{}
