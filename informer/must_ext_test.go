package informer_test

import "github.com/kubego/kubego/informer"

// mustAcquire is informer.Acquire, AcquireResource or AcquireMetadata in
// tests of factories that cannot refuse a request (no OneInformerPerType).
func mustAcquire[T informer.Object](inf *informer.Informer[T], err error) *informer.Informer[T] {
	if err != nil {
		panic(err)
	}
	return inf
}
