// Package certs makes certificates for webhook servers in development and
// tests: a self-signed CA, serving certificates it signs for given DNS names
// and IP addresses, and the files a webhook server reads them from.
//
// The keys are ECDSA P-256. Nothing here is meant for production PKI: a
// cluster's webhooks there are usually served with certificates from
// cert-manager or the platform.
//
//	ca, err := certs.NewCA(certs.CAOptions{})
//	...
//	pair, err := ca.Issue(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
//	...
//	files, err := certs.Write(dir, pair) // tls.crt and tls.key, replaced atomically
//	...
//	// register ca.CertPEM as the webhook's caBundle
package certs
