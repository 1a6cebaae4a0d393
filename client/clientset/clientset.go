package clientset

//go:generate go run ../../internal/gen/clientsetgen -root ../..

import (
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/rest"
)

// Clientset is the familiar entry point: one accessor per built-in
// group/version, each with one accessor per resource. It is safe for
// concurrent use.
type Clientset struct{ c *client.Client }

// New returns a Clientset over c.
func New(c *client.Client) *Clientset { return &Clientset{c: c} }

// NewForConfig builds a rest client from cfg and a Clientset over it, with
// client options opts.
func NewForConfig(cfg *rest.Config, opts client.Options) (*Clientset, error) {
	rc, err := rest.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	return New(client.New(rc, opts)), nil
}

// Client returns the generic client under the Clientset, for client.Typed
// with types the Clientset does not list (CRD types).
func (cs *Clientset) Client() *client.Client { return cs.c }
