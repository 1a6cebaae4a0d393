package workqueue_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kubego/kubego/workqueue"
)

// Key names an object; a struct key needs no parsing.
type Key struct{ Namespace, Name string }

func Example() {
	q := workqueue.New(workqueue.Options[Key]{})

	// Event handlers only add keys. The repeated key is deduplicated.
	q.Add(Key{"default", "web"})
	q.Add(Key{"default", "db"})
	q.Add(Key{"default", "web"})

	// A worker: Get, reconcile, Forget or AddRateLimited, then Done.
	var mu sync.Mutex
	var reconciled []Key
	reconcile := func(k Key) error {
		mu.Lock()
		defer mu.Unlock()
		reconciled = append(reconciled, k)
		return nil
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			k, ok := q.Get(ctx)
			if !ok {
				return
			}
			if err := reconcile(k); err != nil {
				q.AddRateLimited(k)
			} else {
				q.Forget(k)
			}
			q.Done(k)
			if q.Len() == 0 {
				// For the example only: stop once idle, letting
				// in-flight work finish within a deadline.
				dctx, cancel := context.WithTimeout(ctx, time.Second)
				err := q.ShutDownAndWait(dctx)
				cancel()
				if errors.Is(err, context.DeadlineExceeded) {
					fmt.Println("gave up waiting")
				}
			}
		}
	})
	wg.Wait()
	fmt.Println(reconciled)
	// Output: [{default web} {default db}]
}
