package foos_test

import (
	"testing"

	"github.com/kubego/kubego/fake"
)

// The whole behaviour on the in-memory API server, in about a second.
func TestFooControllerOnTheFake(t *testing.T) {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	run(t, srv.Config(), "foos")
}
