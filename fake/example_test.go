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
