package main

import (
	"bytes"
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/rest"
)

func TestPrintsPodsGroupedByNodeFromTheIndex(t *testing.T) {
	pod := func(ns, name, node string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.PodSpec{NodeName: node}}
	}
	srv := fake.NewServer(fake.Options{},
		pod("a", "web-1", "node-1"), pod("b", "web-2", "node-1"),
		pod("a", "db-1", "node-2"), pod("a", "pending", ""))
	defer srv.Close()
	rc, err := rest.NewClient(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := podsByNode(context.Background(), client.New(rc, client.Options{}), &out); err != nil {
		t.Fatal(err)
	}
	want := "<none>: a/pending\nnode-1: a/web-1, b/web-2\nnode-2: a/db-1\n"
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
}
