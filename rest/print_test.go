package rest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// A Client, its Config, a request and its result hold credentials and
// print none of them, whatever the printer.
func TestNothingPrintsACredential(t *testing.T) {
	const token, password = "token-SECRET-1", "password-SECRET-2"
	basic := base64.StdEncoding.EncodeToString([]byte("me:" + password))
	srv := newServer(t, func(http.ResponseWriter, *http.Request) {})
	for _, cfg := range []*Config{
		{Host: srv.URL, BearerToken: token, AllowInsecureAuth: true},
		{Host: srv.URL, Username: "me", Password: password, AllowInsecureAuth: true},
	} {
		c, err := NewClient(cfg)
		if err != nil {
			t.Fatal(err)
		}
		// A context that has ended: the request goes through the
		// credentials and stops before dialling, so no connection's
		// goroutine changes what is printed.
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		req := c.Get().AbsPath("/api")
		res := req.Do(ctx)
		if !errors.Is(res.Error(), context.Canceled) || len(req.secrets.list) == 0 {
			t.Fatalf("the request did not go through the credentials: %v", res.Error())
		}
		var out bytes.Buffer
		for _, x := range []any{c, cfg, *cfg, cfg.TLS, req, res, c.http.Transport} {
			for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
				fmt.Fprintf(&out, verb+"\n", x)
			}
			slog.New(slog.NewTextHandler(&out, nil)).Info("m", "x", x)
			slog.New(slog.NewJSONHandler(&out, nil)).Info("m", "x", x)
			j, _ := json.Marshal(x)
			out.Write(j)
		}
		for _, s := range []string{token, password, basic} {
			if strings.Contains(out.String(), s) {
				t.Errorf("a credential was printed:\n%s", out.String())
			}
		}
	}
}
