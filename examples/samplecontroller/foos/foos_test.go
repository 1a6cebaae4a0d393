package foos_test

import (
	"testing"
	"testing/synctest"

	"github.com/kubego/kubego/fake"
)

// The whole behaviour on the in-memory API server, served in process
// inside a synctest bubble: the polls of the shared steps, the retries
// and the backoff all run in fake time.
func TestFooControllerOnTheFake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fake.NewServer(fake.Options{})
		defer srv.Close()
		run(t, srv.InProcessConfig(), "foos")
	})
}
