package main

import (
	"errors"
	"reflect"
	"testing"

	"github.com/kubego/kubego/podexec"
	"github.com/kubego/kubego/portforward"
)

func TestPortSpecsAreLocalRemotePairsOrOnePort(t *testing.T) {
	tests := []struct {
		spec  string
		want  []portforward.Port
		fails bool
	}{
		{spec: "8080:80", want: []portforward.Port{{Local: 8080, Remote: 80}}},
		{spec: "9090", want: []portforward.Port{{Local: 9090, Remote: 9090}}},
		{spec: ":80,5432", want: []portforward.Port{{Remote: 80}, {Local: 5432, Remote: 5432}}},
		{spec: "80:", fails: true},
		{spec: "x:80", fails: true},
		{spec: "0", fails: true},
	}
	for _, tt := range tests {
		got, err := parsePorts(tt.spec)
		if tt.fails != (err != nil) || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parsePorts(%q) = %v, %v; want %v (fails %v)", tt.spec, got, err, tt.want, tt.fails)
		}
	}
}

func TestTheCommandsExitCodeBecomesTheProgramsAndOnlyStreamFailuresAreErrors(t *testing.T) {
	tests := []struct {
		err     error
		code    int
		failure bool
	}{
		{nil, 0, false},
		{&podexec.ExitError{Code: 42}, 42, false},
		{errors.New("connection refused"), 1, true},
	}
	for _, tt := range tests {
		code, err := exitCode(tt.err)
		if code != tt.code || (err != nil) != tt.failure {
			t.Errorf("exitCode(%v) = %d, %v; want %d (failure %v)", tt.err, code, err, tt.code, tt.failure)
		}
	}
}
