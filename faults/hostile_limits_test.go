package faults_test

import (
	"errors"
	"time"

	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/rest"
)

// The hostile tests reach the client's limits and typed errors only
// through these helpers.

func withHeaderTimeout(cfg *rest.Config, d time.Duration) { cfg.Limits.ResponseHeaderTimeout = d }

func withBodyLimit(cfg *rest.Config, n int64) { cfg.Limits.MaxResponseBytes = n }

// isLimit reports whether err is a *rest.LimitError naming limit.
func isLimit(err error, limit string) bool {
	var le *rest.LimitError
	return errors.As(err, &le) && le.Limit == limit
}

// refused is how many objects inf refused to store.
func refused[T informer.Object](inf *informer.Informer[T]) int {
	n, _ := inf.Refused()
	return n
}

func withBodyProgressTimeout(cfg *rest.Config, d time.Duration) {
	cfg.Limits.ResponseBodyProgressTimeout = d
}
