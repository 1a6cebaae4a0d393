// Command kubego runs the decode scenario with kubego: rest.Client's
// Do().Into for the decode tier, clientset.Clientset for the Clientset tier.
package main

import (
	"context"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	decodebench "github.com/kubego/kubego/bench/decode"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/client/clientset"
	"github.com/kubego/kubego/rest"
)

func main() { decodebench.Main("kubego", driver{}) }

type driver struct{}

func contentType(protobuf bool) rest.ContentType {
	if protobuf {
		return rest.ContentTypeProtobuf
	}
	return rest.ContentTypeJSON
}

func (driver) REST(rt http.RoundTripper, protobuf bool) (func(context.Context) (int, error), error) {
	rc, err := rest.NewClient(&rest.Config{
		Host:          "http://decode.invalid",
		ContentType:   contentType(protobuf),
		WrapTransport: func(http.RoundTripper) http.RoundTripper { return rt },
	})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (int, error) {
		var l corev1.PodList
		if err := rc.Get().Namespace(decodebench.Namespace).Resource("pods").Do(ctx).Into(&l); err != nil {
			return 0, err
		}
		return len(l.Items), nil
	}, nil
}

func (driver) Clientset(host string, protobuf bool) (func(context.Context) (int, error), error) {
	cs, err := clientset.NewForConfig(&rest.Config{Host: host, ContentType: contentType(protobuf)}, client.Options{})
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
