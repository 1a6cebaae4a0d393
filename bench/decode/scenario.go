// Package decodebench measures what decoding a LIST of Pods costs per
// object, with no API server in the loop, for any client library through a
// small Driver, so the kubego and client-go binaries measure the same thing
// the same way.
//
// The runner captures one page of the populated Pods once, as JSON and as
// protobuf, and writes the two bodies to files. Each binary then decodes
// them repeatedly, in two tiers:
//
//   - decode: the library's REST client over an in-memory RoundTripper that
//     answers with the captured body (request building, body read and
//     decode into a PodList; no network, no server);
//   - clientset: the library's Clientset listing Pods from an httptest
//     server on loopback that serves the captured body (the whole client
//     path a user calls, including the typed list conversion).
//
// Reported per format and tier: ns, bytes allocated and allocations per
// decoded object.
package decodebench

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kubego/kubego/bench/internal/measure"
)

// Media types of the captured bodies.
const (
	MediaJSON     = "application/json"
	MediaProtobuf = "application/vnd.kubernetes.protobuf"
)

// Body is one captured LIST response.
type Body struct {
	Data        []byte
	ContentType string
}

// Bodies serves the captured JSON or protobuf body by the request's Accept
// header (protobuf when it is listed first, as both libraries send it when
// configured for protobuf).
// Served, when set, counts the answers of each format, so that a run can
// check it measured the format it meant to.
type Bodies struct {
	JSON, Protobuf Body
	Served         *Served
}

// Served counts the bodies served per format.
type Served struct{ JSON, Protobuf atomic.Int64 }

func (b Bodies) pick(accept string) Body {
	if strings.HasPrefix(strings.TrimSpace(accept), MediaProtobuf) {
		if b.Served != nil {
			b.Served.Protobuf.Add(1)
		}
		return b.Protobuf
	}
	if b.Served != nil {
		b.Served.JSON.Add(1)
	}
	return b.JSON
}

// RoundTrip answers every request with the captured body, from memory.
func (b Bodies) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	body := b.pick(req.Header.Get("Accept"))
	return &http.Response{
		Status:        "200 OK",
		StatusCode:    http.StatusOK,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": {body.ContentType}},
		Body:          io.NopCloser(bytes.NewReader(body.Data)),
		ContentLength: int64(len(body.Data)),
		Request:       req,
	}, nil
}

// ServeHTTP answers every request with the captured body.
func (b Bodies) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body := b.pick(r.Header.Get("Accept"))
	w.Header().Set("Content-Type", body.ContentType)
	w.Header().Set("Content-Length", fmt.Sprint(len(body.Data)))
	w.Write(body.Data)
}

// Namespace is the namespace the clients list (any: the server ignores it).
const Namespace = "bench-pods"

// Driver is what a client library provides.
type Driver interface {
	// REST returns a function that GETs the Pods of Namespace through the
	// library's REST client, whose transport is rt, in JSON or protobuf,
	// decodes the body into a PodList and returns its length.
	REST(rt http.RoundTripper, protobuf bool) (func(context.Context) (int, error), error)
	// Clientset returns a function that lists the Pods of Namespace through
	// the library's Clientset against host, in JSON or protobuf, and
	// returns the number of items.
	Clientset(host string, protobuf bool) (func(context.Context) (int, error), error)
}

// Main parses the flags, runs every tier and format with d and prints one
// measure.Result.
func Main(impl string, d Driver) {
	jsonPath := flag.String("json", "", "captured JSON PodList body")
	pbPath := flag.String("protobuf", "", "captured protobuf PodList body")
	iterations := flag.Int("iterations", 40, "decodes per tier and format")
	cpu := flag.String("cpuprofile", "", "write a CPU profile here")
	heap := flag.String("memprofile", "", "write a heap profile here at the end")
	flag.Parse()
	if *jsonPath == "" || *pbPath == "" {
		measure.Fail(fmt.Errorf("-json and -protobuf are required"))
	}
	bodies := Bodies{Served: &Served{}}
	for _, f := range []struct {
		path string
		ct   string
		into *Body
	}{{*jsonPath, MediaJSON, &bodies.JSON}, {*pbPath, MediaProtobuf, &bodies.Protobuf}} {
		data, err := os.ReadFile(f.path)
		if err != nil {
			measure.Fail(err)
		}
		*f.into = Body{Data: data, ContentType: f.ct}
	}
	srv := httptest.NewServer(bodies)
	defer srv.Close()

	stop := measure.Profiles(*cpu, *heap)
	r, err := run(context.Background(), d, bodies, srv.URL, *iterations)
	stop()
	if err != nil {
		measure.Fail(fmt.Errorf("%s decode: %w", impl, err))
	}
	r.Impl, r.Scenario = impl, "decode"
	measure.Print(r)
}

func run(ctx context.Context, d Driver, bodies Bodies, host string, iterations int) (measure.Result, error) {
	m := map[string]float64{
		"json_body_bytes_per_obj":     0,
		"protobuf_body_bytes_per_obj": 0,
	}
	objects := 0
	for _, tier := range []string{"decode", "clientset"} {
		for _, pb := range []bool{false, true} {
			format := "json"
			if pb {
				format = "protobuf"
			}
			var (
				fn  func(context.Context) (int, error)
				err error
			)
			if tier == "decode" {
				fn, err = d.REST(bodies, pb)
			} else {
				fn, err = d.Clientset(host, pb)
			}
			if err != nil {
				return measure.Result{}, fmt.Errorf("%s %s: %w", tier, format, err)
			}
			wrong := &bodies.Served.Protobuf
			if pb {
				wrong = &bodies.Served.JSON
			}
			wrong0 := wrong.Load()
			n, err := fn(ctx) // warm up: connection, type caches
			if err != nil {
				return measure.Result{}, fmt.Errorf("%s %s: %w", tier, format, err)
			}
			if wrong.Load() != wrong0 {
				return measure.Result{}, fmt.Errorf("%s %s: the client asked for the other format", tier, format)
			}
			if n == 0 || (objects != 0 && n != objects) {
				return measure.Result{}, fmt.Errorf("%s %s: decoded %d objects, want %d (and not 0)", tier, format, n, objects)
			}
			objects = n
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			for range iterations {
				if _, err := fn(ctx); err != nil {
					return measure.Result{}, fmt.Errorf("%s %s: %w", tier, format, err)
				}
			}
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			total := float64(iterations * n)
			prefix := tier + "_" + format + "_"
			m[prefix+"ns_per_obj"] = float64(elapsed.Nanoseconds()) / total
			m[prefix+"bytes_per_obj"] = float64(after.TotalAlloc-before.TotalAlloc) / total
			m[prefix+"allocs_per_obj"] = float64(after.Mallocs-before.Mallocs) / total
		}
	}
	m["objects_per_list"] = float64(objects)
	m["json_body_bytes_per_obj"] = float64(len(bodies.JSON.Data)) / float64(objects)
	m["protobuf_body_bytes_per_obj"] = float64(len(bodies.Protobuf.Data)) / float64(objects)
	m["gomaxprocs"] = float64(runtime.GOMAXPROCS(0))
	return measure.Result{Metrics: m}, nil
}
