package backoff_test

import (
	"fmt"
	"time"

	"github.com/kubego/kubego/backoff"
)

func ExampleBackoff_Delay() {
	b := backoff.Backoff{Initial: 100 * time.Millisecond, Max: time.Second, Factor: 2}
	for n := 1; n <= 5; n++ {
		fmt.Println(b.Delay(n))
	}
	// Output:
	// 100ms
	// 200ms
	// 400ms
	// 800ms
	// 1s
}
