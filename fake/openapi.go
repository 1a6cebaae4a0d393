package fake

import (
	"bytes"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/kubego/kubego/internal/openapicapture"
)

const (
	mediaOpenAPIV2Protobuf       = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	mediaOpenAPIV2ProtobufLegacy = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf" // what kube-apiserver answers
)

// openAPIModified is the Last-Modified of every document: the capture has
// no time of its own, and a fixed one keeps responses reproducible.
func openAPIModified() time.Time { return time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC) }

// capturedEntry inflates one entry of the capture (internal/openapicapture,
// checked and recaptured by TestOpenAPICapture); ok is false when it has
// none of that name.
func capturedEntry(name string) ([]byte, bool) { return openapicapture.Entry(name) }

// openAPIHash is the hash kube-apiserver names a document by: SHA-512 of
// its bytes in upper-case hex.
func openAPIHash(data []byte) string {
	return fmt.Sprintf("%X", sha512.Sum512(data))
}

// serveOpenAPI answers /openapi/v2, /openapi/v3 and /openapi/v3/<path>. It
// reports whether the path was one of them.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.Path
	if p != "/openapi/v2" && p != "/openapi/v3" && !strings.HasPrefix(p, "/openapi/v3/") {
		return false
	}
	// kube-apiserver marks every answer private unless it says otherwise.
	w.Header().Set("Cache-Control", "no-cache, private")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return true
	}
	switch {
	case p == "/openapi/v2":
		s.serveOpenAPIV2(w, r)
	case p == "/openapi/v3":
		data, err := json.Marshal(s.openAPIIndex())
		if err != nil {
			w.WriteHeader(http.StatusInternalServerError)
			return true
		}
		// Like kube-apiserver: no Content-Type of its own (sniffed as
		// text), no ETag.
		http.ServeContent(w, r, "", openAPIModified(), bytes.NewReader(data))
	default:
		s.serveOpenAPIV3(w, r, strings.TrimPrefix(p, "/openapi/v3/"))
	}
	return true
}

// serveOpenAPIV2 answers the v2 document in JSON or, when Accept asks for
// it, protobuf (gnostic's OpenAPI v2 message), as kube-apiserver.
func (s *Server) serveOpenAPIV2(w http.ResponseWriter, r *http.Request) {
	// kube-apiserver varies on Accept-Encoding (it gzips); the fake
	// never compresses but names the same.
	w.Header().Set("Vary", "Accept-Encoding")
	name, mt := "v2.json", "application/json"
	switch accept := r.Header.Get("Accept"); {
	case strings.Contains(accept, mediaOpenAPIV2Protobuf), strings.Contains(accept, mediaOpenAPIV2ProtobufLegacy):
		// Whichever spelling was asked, kube-apiserver answers the legacy one.
		name, mt = "v2.pb", mediaOpenAPIV2ProtobufLegacy
	case !acceptsJSON(accept):
		w.WriteHeader(http.StatusNotAcceptable)
		return
	}
	data, ok := capturedEntry(name)
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	serveDocument(w, r, mt, data)
}

// openAPIIndexEntry is one path of the v3 index.
type openAPIIndexEntry struct {
	ServerRelativeURL string `json:"serverRelativeURL"`
}

// openAPIIndexDoc is the v3 index, GET /openapi/v3.
type openAPIIndexDoc struct {
	Paths map[string]openAPIIndexEntry `json:"paths"`
}

// openAPIIndex is the captured index plus the group-versions of the custom
// resources served now.
func (s *Server) openAPIIndex() openAPIIndexDoc {
	idx := openAPIIndexDoc{Paths: map[string]openAPIIndexEntry{}}
	if data, ok := capturedEntry("v3.json"); ok {
		_ = json.Unmarshal(data, &idx)
	}
	for key, doc := range s.customOpenAPIV3() {
		idx.Paths[key] = openAPIIndexEntry{ServerRelativeURL: "/openapi/v3/" + key + "?hash=" + openAPIHash(doc)}
	}
	return idx
}

// serveOpenAPIV3 answers the v3 document of one index key. Like
// kube-apiserver, a request naming the current hash is marked immutable
// and one naming another hash is redirected to the current one.
func (s *Server) serveOpenAPIV3(w http.ResponseWriter, r *http.Request, key string) {
	data, ok := s.customOpenAPIV3()[key]
	if !ok {
		data, ok = capturedEntry("v3/" + key + ".json")
	}
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	w.Header().Set("Vary", "Accept")
	if !acceptsJSON(r.Header.Get("Accept")) {
		w.WriteHeader(http.StatusNotAcceptable)
		return
	}
	hash := openAPIHash(data)
	if want := r.URL.Query().Get("hash"); want != "" {
		if want != hash {
			u := *r.URL
			u.RawQuery = "hash=" + hash
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Etag", `"`+hash+`"`)
			w.Header().Set("Location", u.RequestURI())
			w.WriteHeader(http.StatusMovedPermanently)
			return
		}
		w.Header().Set("Cache-Control", "public, immutable")
		w.Header().Set("Expires", s.clock.Now().AddDate(1, 0, 0).UTC().Format(http.TimeFormat))
	}
	serveDocument(w, r, "application/json", data)
}

// serveDocument writes data with its ETag, honouring conditional requests.
func serveDocument(w http.ResponseWriter, r *http.Request, mt string, data []byte) {
	w.Header().Set("Content-Type", mt)
	w.Header().Set("Etag", `"`+openAPIHash(data)+`"`)
	http.ServeContent(w, r, "", openAPIModified(), bytes.NewReader(data))
}

// acceptsJSON reports whether an Accept header admits application/json
// (an empty header admits anything).
func acceptsJSON(accept string) bool {
	if accept == "" {
		return true
	}
	for _, part := range strings.Split(accept, ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		switch strings.TrimSpace(mt) {
		case "application/json", "application/*", "*/*":
			return true
		}
	}
	return false
}
