package auth_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kubego/kubego/auth"
)

// FuzzExecOutput feeds arbitrary plugin output to the ExecCredential
// decoder: it must never panic, and every failure must be ErrExecOutput.
func FuzzExecOutput(f *testing.F) {
	f.Add(cred(auth.ExecAPIV1, "tok", testTime))
	f.Add(`{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"clientCertificateData":"x","clientKeyData":"y"}}`)
	f.Add(`{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"expirationTimestamp":"bad"}}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, out string) {
		runner := auth.RunnerFunc(func(context.Context, auth.Command) ([]byte, []byte, error) {
			return []byte(out), nil, nil
		})
		ex, err := auth.NewExec(auth.ExecOptions{Config: v1Config(), Runner: runner})
		if err != nil {
			t.Fatal(err)
		}
		_, err = ex.GetClientCertificate(nil)
		if err != nil && !errors.Is(err, auth.ErrExecOutput) {
			t.Fatalf("err = %v, want ErrExecOutput", err)
		}
		if err != nil && strings.Contains(out, "secret-fuzz") && strings.Contains(err.Error(), "secret-fuzz") {
			t.Fatalf("error quotes stdout: %v", err)
		}
	})
}
