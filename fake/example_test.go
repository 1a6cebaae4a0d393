package fake_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/rest"
)

// A fake server seeded with two pods, listed through the REST client.
func Example() {
	srv := fake.NewServer(fake.Options{},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1", Labels: map[string]string{"app": "web"}}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "db-1", Labels: map[string]string{"app": "db"}}},
	)
	defer srv.Close()

	c, err := rest.NewClient(srv.Config())
	if err != nil {
		fmt.Println(err)
		return
	}
	var pods corev1.PodList
	err = c.Get().Namespace("default").Resource("pods").Param("labelSelector", "app=web").Do(context.Background()).Into(&pods)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range pods.Items {
		fmt.Println(p.Name)
	}
	// Output: web-1
}

// Fault injection: the next two creates of ConfigMaps fail with 429 and
// a Retry-After the client honours; the third goes through.
func ExampleServer_FailNext() {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	srv.FailNext(fake.Match{Verb: "create", Resource: "configmaps"}, 2, metav1.Status{
		Code: 429, Reason: metav1.StatusReasonTooManyRequests, Message: "slow down",
		Details: &metav1.StatusDetails{RetryAfterSeconds: 1},
	})
	cfg := srv.Config()
	cfg.MaxRetries = -1 // see the failures instead of retrying them
	c, err := rest.NewClient(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}
	for range 3 {
		err := c.Post().Namespace("default").Resource("configmaps").Body(cm).Do(context.Background()).Error()
		fmt.Println(err == nil)
	}
	// Output:
	// false
	// false
	// true
}

// A pod's log: what the test sets is what a client reads through
// pods/{name}/log, here its last line.
func ExampleServer_SetPodLog() {
	srv := fake.NewServer(fake.Options{}, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1"},
		Spec:       corev1.PodSpec{NodeName: "node-a", Containers: []corev1.Container{{Name: "web", Image: "registry.example/web:1"}}},
	})
	defer srv.Close()
	srv.SetPodLog("default", "web-1", "web", []byte("starting\nlistening on :8080\n"))

	c, err := rest.NewClient(srv.Config())
	if err != nil {
		fmt.Println(err)
		return
	}
	data, err := c.Get().Namespace("default").Resource("pods").Name("web-1").SubResource("log").
		Param("tailLines", "1").DoRaw(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(data))
	// Output: listening on :8080
}
