package decodebench

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

var testBodies = Bodies{
	Served:   &Served{},
	JSON:     Body{Data: []byte(`{"items":[{},{}]}`), ContentType: MediaJSON},
	Protobuf: Body{Data: []byte("k8s\x00pb"), ContentType: MediaProtobuf},
}

func TestBodiesAnswerByAccept(t *testing.T) {
	for _, c := range []struct{ accept, want string }{
		{"application/json", MediaJSON},
		{"", MediaJSON},
		{MediaProtobuf + ", application/json", MediaProtobuf},
		{MediaProtobuf + ",application/json", MediaProtobuf},
	} {
		req := httptest.NewRequest("GET", "http://x/api/v1/pods", nil)
		req.Header.Set("Accept", c.accept)
		res, err := testBodies.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		if got := res.Header.Get("Content-Type"); got != c.want {
			t.Errorf("Accept %q: RoundTrip Content-Type %q, want %q", c.accept, got, c.want)
		}
		rec := httptest.NewRecorder()
		testBodies.ServeHTTP(rec, req)
		if got := rec.Header().Get("Content-Type"); got != c.want || rec.Body.String() != string(body) {
			t.Errorf("Accept %q: ServeHTTP answered %q %q, RoundTrip %q", c.accept, got, rec.Body.String(), body)
		}
	}
}

// countDriver "decodes" by counting bytes, through both tiers' transports.
type countDriver struct{}

func fetch(ctx context.Context, c *http.Client, url string, protobuf bool) (int, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	if protobuf {
		req.Header.Set("Accept", MediaProtobuf)
	}
	res, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return len(b), err
}

func (countDriver) REST(rt http.RoundTripper, protobuf bool) (func(context.Context) (int, error), error) {
	c := &http.Client{Transport: rt}
	return func(ctx context.Context) (int, error) { return fetch(ctx, c, "http://decode.invalid/", protobuf) }, nil
}

func (countDriver) Clientset(host string, protobuf bool) (func(context.Context) (int, error), error) {
	return func(ctx context.Context) (int, error) { return fetch(ctx, http.DefaultClient, host, protobuf) }, nil
}

func TestRunRejectsAClientAskingForTheOtherFormat(t *testing.T) {
	srv := httptest.NewServer(testBodies)
	defer srv.Close()
	if _, err := run(t.Context(), jsonOnly{}, testBodies, srv.URL, 1); err == nil || !strings.Contains(err.Error(), "other format") {
		t.Fatalf("run = %v, want the other-format error", err)
	}
}

// jsonOnly asks for JSON whatever it is told.
type jsonOnly struct{ countDriver }

func (jsonOnly) REST(rt http.RoundTripper, _ bool) (func(context.Context) (int, error), error) {
	return countDriver{}.REST(rt, false)
}

func TestRunRejectsFormatsOfDifferentLength(t *testing.T) {
	srv := httptest.NewServer(testBodies)
	defer srv.Close()
	// The two bodies differ in length, so countDriver "decodes" different
	// counts per format: run must notice.
	if _, err := run(t.Context(), countDriver{}, testBodies, srv.URL, 2); err == nil {
		t.Fatal("run accepted two formats decoding to different counts")
	}
	same := Bodies{Served: &Served{}, JSON: testBodies.JSON, Protobuf: Body{Data: []byte("k8s\x00pb-padding!!!"), ContentType: MediaProtobuf}}
	srv2 := httptest.NewServer(same)
	defer srv2.Close()
	r, err := run(t.Context(), countDriver{}, same, srv2.URL, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"decode_json_ns_per_obj", "decode_protobuf_bytes_per_obj", "clientset_json_allocs_per_obj", "clientset_protobuf_ns_per_obj"} {
		if _, ok := r.Metrics[k]; !ok {
			t.Errorf("no %s in %v", k, r.Metrics)
		}
	}
}
