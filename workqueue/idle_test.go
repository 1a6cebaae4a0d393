package workqueue_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubego/kubego/workqueue"
)

func TestIdleIsFalseWhileAKeyWaitsOrIsHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{})
		defer q.ShutDown()
		if !q.Idle() {
			t.Fatal("a new queue is not idle")
		}
		q.AddAfter("later", time.Minute)
		if !q.Idle() {
			t.Fatal("a key waiting for its delay counts as work")
		}
		q.Add("a")
		if q.Idle() {
			t.Fatal("idle with a key waiting")
		}
		k, _ := q.Get(t.Context())
		if q.Idle() {
			t.Fatal("idle with a key held")
		}
		q.Done(k)
		if !q.Idle() {
			t.Fatal("not idle once the key is done")
		}
		time.Sleep(time.Minute)
		synctest.Wait() // the delay's timer has fired
		if q.Idle() {
			t.Fatal("idle once the delayed key is due")
		}
		q.AddLow("low")
		k, _ = q.Get(t.Context())
		q.Done(k)
		if q.Idle() {
			t.Fatal("idle with a low-priority key waiting")
		}
	})
}
