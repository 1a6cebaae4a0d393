package fake_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

const (
	discoveryCapturePath = "testdata/discovery.json"
	mediaAggregated      = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
)

// discoveryLines flattens aggregated discovery (/api and /apis) into one
// sorted line per resource and subresource, with what kubectl reads:
// kind, scope, verbs, short names, categories.
func discoveryLines(ctx context.Context, t *testing.T, c *rest.Client, keep func(group string) bool) []string {
	t.Helper()
	var out []string
	for _, path := range []string{"/api", "/apis"} {
		var list apidiscoveryv2.APIGroupDiscoveryList
		if err := json.Unmarshal(getRaw(ctx, t, c, mediaAggregated, path, nil), &list); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, g := range list.Items {
			if !keep(g.Name) {
				continue
			}
			for _, v := range g.Versions {
				gv := strings.TrimPrefix(g.Name+"/"+v.Version, "/")
				for _, r := range v.Resources {
					kind := ""
					if r.ResponseKind != nil {
						kind = r.ResponseKind.Kind
					}
					out = append(out, fmt.Sprintf("%s %s kind=%s scope=%s verbs=%s short=%s categories=%s",
						gv, r.Resource, kind, r.Scope, sortedJoin(r.Verbs), sortedJoin(r.ShortNames), sortedJoin(r.Categories)))
					for _, s := range r.Subresources {
						kind := ""
						if s.ResponseKind != nil {
							kind = s.ResponseKind.Kind
						}
						out = append(out, fmt.Sprintf("%s %s/%s kind=%s verbs=%s", gv, r.Resource, s.Subresource, kind, sortedJoin(s.Verbs)))
					}
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

func sortedJoin(s []string) string {
	s = slices.Clone(s)
	slices.Sort(s)
	return strings.Join(s, ",")
}

// discoveryGaps are the lines of the real server's discovery the fake
// leaves out on purpose (see doc.go: the connect and virtual subresources
// it does not implement).
var discoveryGaps = []string{
	"v1 nodes/proxy kind=NodeProxyOptions verbs=create,delete,get,patch,update",
	"v1 pods/attach kind=PodAttachOptions verbs=create,get",
	"v1 pods/eviction kind=Eviction verbs=create",
	"v1 pods/exec kind=PodExecOptions verbs=create,get",
	"v1 pods/portforward kind=PodPortForwardOptions verbs=create,get",
	"v1 pods/proxy kind=PodProxyOptions verbs=create,delete,get,patch,update",
	"v1 services/proxy kind=ServiceProxyOptions verbs=create,delete,get,patch,update",
}

// TestDiscoveryMatchesCapture checks the fake's aggregated discovery
// against the snapshot of kube-apiserver's in testdata/discovery.json
// (kept in step with the real server by TestDiscoveryCaptureMatchesServer
// and rewritten with -update-capture): every line of the snapshot but the
// documented gaps, and nothing more.
func TestDiscoveryMatchesCapture(t *testing.T) {
	data, err := os.ReadFile(discoveryCapturePath)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	got := discoveryLines(context.Background(), t, bigClient(t, srv.Config()), func(string) bool { return true })
	for _, l := range want {
		if !slices.Contains(got, l) && !slices.Contains(discoveryGaps, l) {
			t.Errorf("fake lacks: %s", l)
		}
		if slices.Contains(got, l) && slices.Contains(discoveryGaps, l) {
			t.Errorf("fake serves %s, listed among the gaps", l)
		}
	}
	for _, l := range got {
		if !slices.Contains(want, l) {
			t.Errorf("fake has, real server not: %s", l)
		}
	}
}

// TestDiscoveryCaptureMatchesServer checks testdata/discovery.json against
// a real kube-apiserver (built-in groups only: other tests install custom
// resources on the shared control plane); with -update-capture it rewrites
// the snapshot from a fresh control plane instead.
func TestDiscoveryCaptureMatchesServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if *updateCapture {
		cp, err := testenv.Start(ctx, testenv.Options{Version: testenv.DefaultVersion})
		if err != nil {
			t.Fatal(err)
		}
		defer cp.Stop()
		lines := discoveryLines(ctx, t, bigClient(t, cp.Config()), func(string) bool { return true })
		data, err := json.MarshalIndent(lines, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(discoveryCapturePath, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	cp := testenv.Shared(t)
	skipUnlessCapturedVersion(t, cp)
	builtin := builtinGroups(t)
	got := discoveryLines(ctx, t, bigClient(t, cp.Config()), func(g string) bool { return builtin[g] })
	data, err := os.ReadFile(discoveryCapturePath)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		for _, l := range got {
			if !slices.Contains(want, l) {
				t.Errorf("real server has, snapshot not: %s", l)
			}
		}
		for _, l := range want {
			if !slices.Contains(got, l) {
				t.Errorf("snapshot has, real server not: %s", l)
			}
		}
		t.Log("recapture with -update-capture")
	}
}

// skipUnlessCapturedVersion skips a test that holds the fake's captured
// copies (discovery, OpenAPI) against the real server when that server is
// not the version they were captured from: the fake plays
// testenv.DefaultVersion.
func skipUnlessCapturedVersion(t *testing.T, cp *testenv.ControlPlane) {
	t.Helper()
	if v := cp.Version(); v != testenv.DefaultVersion {
		t.Skipf("the captured copies are of kube-apiserver %s, this one is %s", testenv.DefaultVersion, v)
	}
}

// legacyHashes lists every built-in resource of legacy discovery with its
// storageVersionHash, one sorted line each.
func legacyHashes(ctx context.Context, t *testing.T, c *rest.Client, keep func(group string) bool) []string {
	t.Helper()
	var groups metav1.APIGroupList
	if err := json.Unmarshal(getRaw(ctx, t, c, "application/json", "/apis", nil), &groups); err != nil {
		t.Fatal(err)
	}
	paths := []string{"/api/v1"}
	for _, g := range groups.Groups {
		if !keep(g.Name) {
			continue
		}
		for _, v := range g.Versions {
			paths = append(paths, "/apis/"+v.GroupVersion)
		}
	}
	var out []string
	for _, p := range paths {
		var rl metav1.APIResourceList
		if err := json.Unmarshal(getRaw(ctx, t, c, "application/json", p, nil), &rl); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, r := range rl.APIResources {
			out = append(out, fmt.Sprintf("%s %s storageVersionHash=%q", rl.GroupVersion, r.Name, r.StorageVersionHash))
		}
	}
	slices.Sort(out)
	return out
}

// TestLegacyDiscoveryHashesMatchServer compares the storageVersionHash of
// every built-in resource in the fake's legacy discovery with a real
// kube-apiserver's (the subresources the fake does not serve aside).
func TestLegacyDiscoveryHashesMatchServer(t *testing.T) {
	cp := testenv.Shared(t)
	skipUnlessCapturedVersion(t, cp)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	builtin := builtinGroups(t)
	keep := func(g string) bool { return builtin[g] }
	want := legacyHashes(ctx, t, bigClient(t, cp.Config()), keep)
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	got := legacyHashes(ctx, t, bigClient(t, srv.Config()), keep)
	for _, l := range want {
		if !slices.Contains(got, l) && !slices.ContainsFunc(discoveryGaps, func(gap string) bool {
			f := strings.Fields(gap)
			return strings.HasPrefix(l, f[0]+" "+f[1]+" ")
		}) {
			t.Errorf("fake differs from, or lacks: %s", l)
		}
	}
	for _, l := range got {
		if !slices.Contains(want, l) {
			t.Errorf("fake has, real server not: %s", l)
		}
	}
}
