package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kubego/kubego/bench/internal/fixture"
	"github.com/kubego/kubego/rest"
)

// captureList saves one LIST page of page Pods of fixture.PodNamespace, as
// the API server sends it in JSON and in protobuf, for the decode
// benchmark. It returns the two file paths.
func captureList(ctx context.Context, cfg *rest.Config, dir string, page int) (jsonPath, pbPath string, err error) {
	rc, err := rest.NewClient(cfg)
	if err != nil {
		return "", "", err
	}
	for _, f := range []struct {
		accept, name string
		path         *string
	}{
		{"application/json", "pods.json", &jsonPath},
		{"application/vnd.kubernetes.protobuf", "pods.pb", &pbPath},
	} {
		res := rc.Get().Namespace(fixture.PodNamespace).Resource("pods").
			Param("limit", strconv.Itoa(page)).Accept(f.accept).Do(ctx)
		body, err := res.Raw()
		if err != nil {
			return "", "", fmt.Errorf("capturing the %s list: %w", f.accept, err)
		}
		if ct := res.ContentType(); !strings.HasPrefix(ct, f.accept) {
			return "", "", fmt.Errorf("capturing the %s list: the server answered %q", f.accept, ct)
		}
		*f.path = filepath.Join(dir, f.name)
		if err := os.WriteFile(*f.path, body, 0o644); err != nil {
			return "", "", err
		}
		logf("captured a LIST of up to %d Pods as %s: %d bytes", page, f.accept, len(body))
	}
	return jsonPath, pbPath, nil
}
