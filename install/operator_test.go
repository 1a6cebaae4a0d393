package install_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/kubego/kubego/install"
)

func TestObjectsRefusesAnOperatorThatCannotBeInstalled(t *testing.T) {
	ok := install.Operator{Name: "op", Namespace: "op-system", Image: "example.com/op:v1"}
	tests := []struct {
		name   string
		mutate func(*install.Operator)
		want   string
	}{
		{"without a name", func(o *install.Operator) { o.Name = "" }, "Name"},
		{"with a name that is not a DNS label", func(o *install.Operator) { o.Name = "Op_1" }, "Name"},
		{"without a namespace", func(o *install.Operator) { o.Namespace = "" }, "Namespace"},
		{"without an image", func(o *install.Operator) { o.Image = "" }, "Image"},
		{"with negative replicas", func(o *install.Operator) { o.Replicas = -1 }, "Replicas"},
		{"with a port out of range", func(o *install.Operator) { o.MetricsPort = 70000 }, "port"},
		{"with a CRD that is not one", func(o *install.Operator) {
			o.CRDs = []*unstructured.Unstructured{{Object: map[string]any{"kind": "ConfigMap"}}}
		}, "CRDs[0]"},
		{"with a nil CRD", func(o *install.Operator) { o.CRDs = []*unstructured.Unstructured{nil} }, "CRDs[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := ok
			tt.mutate(&o)
			_, err := o.Objects()
			if !errors.Is(err, install.ErrInvalidOperator) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Objects() = %v, want ErrInvalidOperator naming %s", err, tt.want)
			}
		})
	}
	if _, err := ok.Objects(); err != nil {
		t.Errorf("a complete operator: %v", err)
	}
}

func TestObjectsRunTheOperatorAsARestrictedPod(t *testing.T) {
	o := install.Operator{Name: "op", Namespace: "op-system", Image: "example.com/op:v1", Args: []string{"-v"}, MetricsPort: 8443}
	objs, err := o.Objects()
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var dep *unstructured.Unstructured
	for _, obj := range objs {
		kinds = append(kinds, obj.GetKind())
		if obj.GetLabels()[install.OperatorLabel] != "op" {
			t.Errorf("%s %s lacks the operator label", obj.GetKind(), obj.GetName())
		}
		if obj.GetKind() == "Deployment" {
			dep = obj
		}
	}
	if got := strings.Join(kinds, ","); got != "Namespace,ServiceAccount,Deployment" {
		t.Errorf("kinds = %s; an operator without rules, webhooks or a metrics Service needs only these", got)
	}
	c, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
	sc, _, _ := unstructured.NestedMap(c[0].(map[string]any), "securityContext")
	if sc["allowPrivilegeEscalation"] != false || sc["readOnlyRootFilesystem"] != true || sc["runAsNonRoot"] != true {
		t.Errorf("container securityContext = %v", sc)
	}
	if sa, _, _ := unstructured.NestedString(dep.Object, "spec", "template", "spec", "serviceAccountName"); sa != "op" {
		t.Errorf("serviceAccountName = %q", sa)
	}
}

func TestCommandPrintsManifestsThatReadBack(t *testing.T) {
	o := install.Operator{Name: "op", Namespace: "op-system", Image: "example.com/op:v1"}
	var out bytes.Buffer
	handled, err := install.Command(context.Background(), []string{"manifests"}, o, &out)
	if !handled || err != nil {
		t.Fatalf("Command(manifests) = %v, %v", handled, err)
	}
	docs := strings.Split(out.String(), "---\n")
	objs, _ := o.Objects()
	if len(docs) != len(objs) {
		t.Fatalf("%d documents, want %d", len(docs), len(objs))
	}
	for i, d := range docs {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(d), &m); err != nil || m["kind"] != objs[i].GetKind() {
			t.Errorf("document %d: kind %v, err %v", i, m["kind"], err)
		}
	}
	for _, args := range [][]string{nil, {"run"}, {"-v"}} {
		if handled, _ := install.Command(context.Background(), args, o, &out); handled {
			t.Errorf("Command(%q) handled arguments that are not its subcommands", args)
		}
	}
	if _, err := install.Command(context.Background(), []string{"install", "extra"}, o, &out); !errors.Is(err, install.ErrUsage) {
		t.Errorf("Command(install extra) = %v, want ErrUsage", err)
	}
}
