package kubegotest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/kubego/kubego/kubegotest"
)

// Poll until a condition holds; its last error says what was seen when it
// does not. In a test, Eventually(ctx, t, cond) fails the test with it.
func ExamplePoll() {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	available := 0
	err := kubegotest.Poll(ctx, func(context.Context) error {
		if available < 3 {
			available++
			return fmt.Errorf("%d of 3 replicas available", available)
		}
		return nil
	})
	fmt.Println(err)

	err = kubegotest.Poll(ctx, func(context.Context) error { return fmt.Errorf("0 of 3 replicas available") })
	fmt.Println(err != nil)
	// Output:
	// <nil>
	// true
}
