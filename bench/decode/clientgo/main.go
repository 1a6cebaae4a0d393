// Command clientgo runs the decode scenario with client-go v0.37.2: the
// core/v1 RESTClient's Do().Into for the decode tier, kubernetes.Clientset
// for the Clientset tier. Client-side rate limiting is lifted (kubego has
// none by default).
package main

import (
	"context"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	decodebench "github.com/kubego/kubego/bench/decode"
)

func main() { decodebench.Main("client-go", driver{}) }

type driver struct{}

func config(host string, rt http.RoundTripper, protobuf bool) *rest.Config {
	cfg := &rest.Config{Host: host, Transport: rt, QPS: 1e6, Burst: 1e6}
	if protobuf {
		cfg.ContentType = decodebench.MediaProtobuf
		cfg.AcceptContentTypes = decodebench.MediaProtobuf + "," + decodebench.MediaJSON
	} else {
		// Set explicitly: with ContentType unset, v0.37's typed clients
		// (gentype.PrefersProtobuf) ask for protobuf for built-in kinds.
		cfg.ContentType = decodebench.MediaJSON
		cfg.AcceptContentTypes = decodebench.MediaJSON
	}
	return cfg
}

func (driver) REST(rt http.RoundTripper, protobuf bool) (func(context.Context) (int, error), error) {
	cs, err := kubernetes.NewForConfig(config("http://decode.invalid", rt, protobuf))
	if err != nil {
		return nil, err
	}
	rc := cs.CoreV1().RESTClient()
	return func(ctx context.Context) (int, error) {
		var l corev1.PodList
		if err := rc.Get().Namespace(decodebench.Namespace).Resource("pods").Do(ctx).Into(&l); err != nil {
			return 0, err
		}
		return len(l.Items), nil
	}, nil
}

func (driver) Clientset(host string, protobuf bool) (func(context.Context) (int, error), error) {
	cs, err := kubernetes.NewForConfig(config(host, nil, protobuf))
	if err != nil {
		return nil, err
	}
	pods := cs.CoreV1().Pods(decodebench.Namespace)
	return func(ctx context.Context) (int, error) {
		l, err := pods.List(ctx, metav1.ListOptions{})
		if err != nil {
			return 0, err
		}
		return len(l.Items), nil
	}, nil
}
