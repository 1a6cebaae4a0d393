// Package certs is kubego's one source of X.509 material: a CA (made
// fresh with NewCA, or loaded from a kept certificate and key with
// LoadCA), the serving certificates it signs for DNS names and IP
// addresses (Issue: webhook servers, secure metrics, test servers), the
// client certificates kube-apiserver maps to a user and groups
// (IssueClient), and the files a server reads them from (Write, replacing
// each file atomically).
//
// Keys are ECDSA P-256, serial numbers random, validity dated by an
// injectable clock. A KeyPair prints (fmt, log/slog, encoding/json) as
// its certificate's size, never the key. A CA is immutable and safe for
// concurrent use; Pair gives its certificate and key to keep, in a
// kubernetes.io/tls Secret for example, so that every replica of a
// program loads the same CA and one caBundle trusts all of them.
//
//	ca, err := certs.NewCA(certs.CAOptions{})
//	...
//	pair, err := ca.Issue(certs.ServingOptions{DNSNames: []string{"webhook.ns.svc"}})
//	...
//	files, err := certs.Write(dir, pair) // tls.crt and tls.key
//	...
//	// register ca.CertPEM as the webhook's caBundle
//
// What is not here: keeping the CA in a Secret, rotating certificates
// before they expire and updating the caBundle of webhook configurations
// are a program's running tasks, done by package webhookconfig.
package certs
