package rest

import (
	"net/http"
	"strconv"
	"time"
)

// defaultTooManyRequestsDelay is the wait after a 429 without Retry-After.
const defaultTooManyRequestsDelay = time.Second

// minRetryAfterDate is the shortest wait a Retry-After HTTP date gives. A
// date has a resolution of one second, and one already past (a skewed
// clock, a cached answer) must not turn into retries sent back to back to
// a server that is shedding load: it waits as a 429 without Retry-After
// does.
const minRetryAfterDate = defaultTooManyRequestsDelay

// retryDelay decides whether resp should be retried and after how long.
//
//   - 429 Too Many Requests means the server did not process the request, so
//     it is retried whenever the request can be sent again (idempotent, or a
//     body that can be replayed), after Retry-After or one second.
//   - A 5xx with Retry-After is retried only for idempotent requests (GET,
//     HEAD, watch start): the server may have acted on anything else.
//
// The wait is capped at the client's MaxRetryAfter; send also stops
// retrying once the waits of one call would pass MaxRetryWait.
func (c *Client) retryDelay(resp *http.Response, idempotent, replayable bool, now time.Time) (time.Duration, bool) {
	after, hasAfter := parseRetryAfter(resp.Header.Get("Retry-After"), now)
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		if !idempotent && !replayable {
			return 0, false
		}
		if !hasAfter {
			after = defaultTooManyRequestsDelay
		}
	case resp.StatusCode >= 500 && resp.StatusCode < 600 && hasAfter && idempotent:
	default:
		return 0, false
	}
	return min(max(after, 0), c.maxAfter), true
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date
// (at least minRetryAfterDate from now).
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0, false
		}
		if s > 1<<20 {
			s = 1 << 20
		}
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), minRetryAfterDate), true
	}
	return 0, false
}

func idempotentMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	return false
}
