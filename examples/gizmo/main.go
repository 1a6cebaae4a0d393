// Command gizmo runs an operator's webhooks against a local control plane:
// it starts etcd and kube-apiserver (testenv), makes a development
// certificate, serves the Gizmo webhooks (package gizmo: defaulting,
// validation, v1↔v2 conversion) on loopback, registers them, and shows
// what kube-apiserver does with a few requests.
//
//	go run ./examples/gizmo
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/certs"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/examples/gizmo/gizmo"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
	"github.com/kubego/kubego/webhook"
	"github.com/kubego/kubego/webhook/admission"
)

func main() {
	ctx, stop := manager.SignalContext(context.Background())
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	fmt.Println("starting a local control plane (etcd + kube-apiserver)…")
	cp, err := testenv.Start(ctx, testenv.Options{Logger: log})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gizmo:", err)
		os.Exit(1)
	}
	err = run(ctx, os.Stdout, log, cp)
	cp.Stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gizmo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer, log *slog.Logger, cp *testenv.ControlPlane) error {
	// 1. A CA and a serving certificate for 127.0.0.1, in files the server
	// reads (and would reload, were they rotated).
	dir, err := os.MkdirTemp("", "gizmo-webhook-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ca, err := certs.NewCA(certs.CAOptions{})
	if err != nil {
		return err
	}
	pair, err := ca.Issue(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		return err
	}
	files, err := certs.Write(dir, pair)
	if err != nil {
		return err
	}

	// 2. The webhook server, on a free loopback port.
	srv, err := webhook.New(webhook.Options{Addr: "127.0.0.1:0", CertFile: files.CertFile, KeyFile: files.KeyFile, Logger: log})
	if err != nil {
		return err
	}
	gizmo.Serve(srv, admission.Options{Logger: log})
	ctx, cancel := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Start(ctx) }()
	defer func() { cancel(); <-served }()
	select {
	case <-srv.Serving():
	case err := <-served:
		return err
	}
	url := "https://" + srv.Addr().String()

	// 3. The CRD, its conversion webhook and the admission webhooks.
	rc, err := rest.NewClient(cp.Config())
	if err != nil {
		return err
	}
	reg := client.NewRegistry()
	gizmo.Register(reg)
	c := client.New(rc, client.Options{Registry: reg})
	if err := gizmo.Install(ctx, c); err != nil {
		return err
	}
	if err := cp.InstallConversionWebhook(ctx, gizmo.CRDName, url+gizmo.ConvertPath, ca.CertPEM); err != nil {
		return err
	}
	if err := cp.InstallWebhooks(ctx, gizmo.Webhooks(url, ca.CertPEM)); err != nil {
		return err
	}
	defer cp.UninstallWebhooks(context.WithoutCancel(ctx), gizmo.Webhooks(url, nil).Name)
	fmt.Fprintf(out, "webhooks served at %s and registered\n", url)

	v1, v2 := client.Typed[*gizmo.GizmoV1](c).Namespace("default"), client.Typed[*gizmo.Gizmo](c).Namespace("default")
	if err := waitActive(ctx, v1); err != nil {
		return err
	}

	// 4. What kube-apiserver does with them.
	created, err := v1.Create(ctx, &gizmo.GizmoV1{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}, Spec: gizmo.SpecV1{Size: 30}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating gizmo a: %w", err)
	}
	fmt.Fprintf(out, "created as v1: size %d, color %s (defaulted)\n", created.Spec.Size, created.Spec.Color)
	asV2, err := v2.Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "read as v2: length %s, color %s\n", asV2.Spec.Length, asV2.Spec.Color)

	_, err = v2.Create(ctx, &gizmo.Gizmo{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "b"}, Spec: gizmo.Spec{Length: "9m"}}, metav1.CreateOptions{})
	fmt.Fprintf(out, "creating a 9m gizmo: %s\n", message(err))

	asV2.Spec.Color = "pink"
	_, err = v2.Update(ctx, asV2, metav1.UpdateOptions{})
	fmt.Fprintf(out, "repainting a: %s\n", message(err))

	list, err := v1.List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, g := range list.Items {
		fmt.Fprintf(out, "listed as v1: %s size %d\n", g.Name, g.Spec.Size)
	}
	return v1.Delete(ctx, "a", metav1.DeleteOptions{})
}

// waitActive waits until kube-apiserver calls the webhooks: a dry-run
// create comes back defaulted.
func waitActive(ctx context.Context, v1 *client.Resource[*gizmo.GizmoV1]) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		g, err := v1.Create(ctx, &gizmo.GizmoV1{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "probe"}, Spec: gizmo.SpecV1{Size: 1}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil && g.Spec.Color != "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the webhooks were not called within 30 s (last error: %v)", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// message is what kube-apiserver answered: the refusal, or "accepted".
func message(err error) string {
	var se *apierrors.StatusError
	switch {
	case err == nil:
		return "accepted"
	case errors.As(err, &se):
		return "refused: " + se.ErrStatus.Message
	}
	return err.Error()
}
