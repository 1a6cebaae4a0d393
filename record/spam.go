package record

import (
	"container/list"
	"time"
)

// spamLimit keeps a token bucket per regarding object, for the most
// recently seen objects (an object evicted from it starts again with a full
// bucket). Not safe for concurrent use: the Recorder's lock guards it.
type spamLimit struct {
	burst  float64
	refill time.Duration // time to earn one token
	max    int

	buckets map[objectKey]*list.Element // of *bucket
	lru     list.List                   // front: most recently used
}

type bucket struct {
	key    objectKey
	tokens float64
	at     time.Time // when tokens was computed
}

func newSpamLimit(burst int, refill time.Duration, max int) *spamLimit {
	return &spamLimit{burst: float64(burst), refill: refill, max: max, buckets: map[objectKey]*list.Element{}}
}

// allow takes a token from k's bucket if it has one.
func (s *spamLimit) allow(k objectKey, now time.Time) bool {
	var b *bucket
	if el, ok := s.buckets[k]; ok {
		s.lru.MoveToFront(el)
		b = el.Value.(*bucket)
		if elapsed := now.Sub(b.at); elapsed > 0 {
			b.tokens = min(s.burst, b.tokens+float64(elapsed)/float64(s.refill))
			b.at = now
		}
	} else {
		b = &bucket{key: k, tokens: s.burst, at: now}
		s.buckets[k] = s.lru.PushFront(b)
		if s.lru.Len() > s.max {
			last := s.lru.Back()
			s.lru.Remove(last)
			delete(s.buckets, last.Value.(*bucket).key)
		}
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
