// Package openapicapture holds the OpenAPI documents, discovery of
// APIServices and custom resource template captured from a default
// kube-apiserver of the version testenv runs, and reads them.
//
// The capture is one zip file of deflated entries: v2.json and v2.pb (the
// OpenAPI v2 document in JSON and protobuf), v3.json (the v3 index),
// v3/<index key>.json (every v3 document, keyed as "api/v1" or
// "apis/apps/v1"), crd-template.json (the v3 document of a template custom
// resource) and apiservices.json (the APIServices kube-apiserver registers
// at start). Entry inflates one entry on demand; nothing is kept. fake
// serves the documents and merges by their models; apischema gives a custom
// resource that embeds a built-in type the schema kube-apiserver publishes
// for it. fake's TestOpenAPICapture checks the capture against the real
// server and rewrites Path with -update-capture.
package openapicapture

import (
	"archive/zip"
	"bytes"
	_ "embed"
	"io"
	"strings"
)

// Path is the capture file, relative to this package's directory.
const Path = "kube-apiserver.zip"

//go:embed kube-apiserver.zip
var captured []byte

// Entry inflates one entry of the capture; ok is false when it has none of
// that name. The bytes are the caller's.
func Entry(name string) (data []byte, ok bool) {
	zr, err := zip.NewReader(bytes.NewReader(captured), int64(len(captured)))
	if err != nil {
		return nil, false
	}
	for _, f := range zr.File {
		if f.Name != name {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, false
		}
		defer rc.Close()
		data := make([]byte, f.UncompressedSize64)
		if _, err := io.ReadFull(rc, data); err != nil {
			return nil, false
		}
		return data, true
	}
	return nil, false
}

// V3Keys returns the index keys of the captured v3 documents ("api/v1",
// "apis/apps/v1", …) in the capture's order (sorted).
func V3Keys() []string {
	zr, err := zip.NewReader(bytes.NewReader(captured), int64(len(captured)))
	if err != nil {
		return nil
	}
	var out []string
	for _, f := range zr.File {
		key, ok := strings.CutPrefix(f.Name, "v3/")
		if ok && strings.HasSuffix(key, ".json") {
			out = append(out, strings.TrimSuffix(key, ".json"))
		}
	}
	return out
}
