package openapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kubego/kubego/rest"
)

var (
	// ErrNotServed is wrapped by the error for a group/version the
	// server's OpenAPI v3 index does not list.
	ErrNotServed = errors.New("openapi: group/version not served")
	// ErrNoSchema is wrapped by the error for a kind no schema of its
	// group/version's document describes, or a field path that leads
	// nowhere.
	ErrNoSchema = errors.New("openapi: no schema")
)

// Options configure a Client. The zero value is ready to use.
type Options struct{}

// Client reads kube-apiserver's OpenAPI v3 documents: the index of
// group/versions (/openapi/v3) and each group/version's document, kept
// by the hash the index gives it, so a document is fetched again only
// when the server's changed (a CRD installed or updated). It is safe for
// concurrent use.
type Client struct {
	rc *rest.Client

	mu   sync.Mutex
	docs map[string]*spec3.OpenAPI // by the document's URL, hash included
}

// New returns a Client reading through rc.
func New(rc *rest.Client, opts Options) *Client {
	return &Client{rc: rc, docs: map[string]*spec3.OpenAPI{}}
}

// index is the /openapi/v3 document.
type index struct {
	Paths map[string]struct {
		URL string `json:"serverRelativeURL"`
	} `json:"paths"`
}

// Paths returns the server-relative URL of each group/version's document,
// keyed as the index keys them ("api/v1", "apis/apps/v1"), each URL with
// the hash of the document's current content.
func (c *Client) Paths(ctx context.Context) (map[string]string, error) {
	body, err := c.rc.Get().AbsPath("/openapi/v3").Do(ctx).Raw()
	if err != nil {
		return nil, fmt.Errorf("openapi: reading the v3 index: %w", err)
	}
	var idx index
	if err := json.Unmarshal(body, &idx); err != nil {
		return nil, fmt.Errorf("openapi: the v3 index is not readable: %w", err)
	}
	out := make(map[string]string, len(idx.Paths))
	for k, p := range idx.Paths {
		out[k] = p.URL
	}
	return out, nil
}

// Document returns the OpenAPI v3 document of gv ("v1" alone is the core
// group). The returned document is shared: read-only.
func (c *Client) Document(ctx context.Context, gv schema.GroupVersion) (*spec3.OpenAPI, error) {
	paths, err := c.Paths(ctx)
	if err != nil {
		return nil, err
	}
	key := "apis/" + gv.String()
	if gv.Group == "" {
		key = "api/" + gv.Version
	}
	u, ok := paths[key]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotServed, gv)
	}
	c.mu.Lock()
	doc, ok := c.docs[u]
	c.mu.Unlock()
	if ok {
		return doc, nil
	}
	parsed, err := url.Parse(u)
	if err != nil {
		return nil, fmt.Errorf("openapi: the index gives %s the URL %q: %w", gv, u, err)
	}
	req := c.rc.Get().AbsPath(parsed.Path)
	for k, vs := range parsed.Query() {
		for _, v := range vs {
			req = req.Param(k, v)
		}
	}
	body, err := req.Do(ctx).Raw()
	if err != nil {
		return nil, fmt.Errorf("openapi: reading the document of %s: %w", gv, err)
	}
	doc = &spec3.OpenAPI{}
	if err := json.Unmarshal(body, doc); err != nil {
		return nil, fmt.Errorf("openapi: the document of %s is not readable: %w", gv, err)
	}
	c.mu.Lock()
	for k := range c.docs { // an older hash of the same group/version
		if strings.HasPrefix(k, parsed.Path+"?") || k == parsed.Path {
			delete(c.docs, k)
		}
	}
	c.docs[u] = doc
	c.mu.Unlock()
	return doc, nil
}

// Schema returns the schema of kind gvk: the component of its
// group/version's document whose x-kubernetes-group-version-kind names
// it, and the document, in which its $refs resolve. The schema is shared:
// read-only.
func (c *Client) Schema(ctx context.Context, gvk schema.GroupVersionKind) (*spec.Schema, *spec3.OpenAPI, error) {
	doc, err := c.Document(ctx, gvk.GroupVersion())
	if err != nil {
		return nil, nil, err
	}
	if doc.Components != nil {
		for _, name := range sortedKeys(doc.Components.Schemas) {
			s := doc.Components.Schemas[name]
			if names(s, gvk) {
				return s, doc, nil
			}
		}
	}
	return nil, nil, fmt.Errorf("%w: no kind %s in the document of %s", ErrNoSchema, gvk.Kind, gvk.GroupVersion())
}

// names reports whether s is the schema of gvk.
func names(s *spec.Schema, gvk schema.GroupVersionKind) bool {
	raw, ok := s.Extensions["x-kubernetes-group-version-kind"]
	if !ok {
		return false
	}
	list, _ := raw.([]any)
	for _, e := range list {
		m, _ := e.(map[string]any)
		if m["group"] == gvk.Group && m["version"] == gvk.Version && m["kind"] == gvk.Kind {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
