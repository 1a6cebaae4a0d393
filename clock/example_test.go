package clock_test

import (
	"context"
	"fmt"
	"time"

	"github.com/kubego/kubego/clock"
)

// A component takes a Clock in its Options and applies Or once; nil means
// the wall clock.
func ExampleSleep() {
	c := clock.Or(nil)
	err := clock.Sleep(context.Background(), c, time.Millisecond)
	fmt.Println(err)
	// Output: <nil>
}
