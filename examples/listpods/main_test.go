package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/client/clientset"
	"github.com/kubego/kubego/fake"
)

func TestListsPodsPageByPage(t *testing.T) {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	for i, name := range []string{"web-1", "web-2", "db-1"} {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Labels: map[string]string{"app": name[:len(name)-2]}}}
		p.Spec.NodeName = []string{"n1", "n2", ""}[i]
		if err := srv.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := srv.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "x"}}); err != nil {
		t.Fatal(err)
	}
	cs, err := clientset.NewForConfig(srv.Config(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := listPods(context.Background(), cs, "shop", "app=web", &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"web-1", "web-2", "n2", "2 pods"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "db-1") || strings.Contains(got, "other") {
		t.Errorf("output has pods it should not:\n%s", got)
	}
}
