package authfilter_test

import (
	"log"
	"net/http"

	"github.com/kubego/kubego/authfilter"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/kubeconfig"
)

// Protect a handler so only callers RBAC allows to get its path reach it.
func Example() {
	cc, err := kubeconfig.Load(kubeconfig.Options{})
	if err != nil {
		log.Fatal(err)
	}
	c, err := client.NewForConfig(cc.Config, client.Options{})
	if err != nil {
		log.Fatal(err)
	}
	f, err := authfilter.New(authfilter.Options{Client: c})
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("/metrics", f.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("# metrics\n"))
	})))
	// Serve over TLS: a bearer token must never cross plain HTTP.
	log.Fatal(http.ListenAndServeTLS("127.0.0.1:8443", "tls.crt", "tls.key", nil))
}
