package client_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
)

func TestUnknownTypeIsPermanentForInformers(t *testing.T) {
	cause := errors.New("no match")
	tests := []struct {
		name string
		err  error
	}{
		{"without cause", &client.UnknownTypeError{Type: reflect.TypeFor[int]()}},
		{"with cause", &client.UnknownTypeError{Type: reflect.TypeFor[int](), Cause: cause}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !errors.Is(tt.err, client.ErrUnknownType) || !errors.Is(tt.err, informer.ErrPermanent) {
				t.Fatalf("%v: want ErrUnknownType and a permanent informer error", tt.err)
			}
		})
	}
}
