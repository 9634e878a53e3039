package wsapi

import "time"

// limiter is a token bucket: rate tokens per second, bursts up to twice
// that. Only the socket's goroutine uses it.
type limiter struct {
	rate   float64
	burst  float64
	tokens float64
	last   time.Time
	now    func() time.Time
}

func newLimiter(perSecond int) *limiter {
	r := float64(perSecond)
	return &limiter{rate: r, burst: 2 * r, tokens: 2 * r, last: time.Now(), now: time.Now}
}

// allow takes one token, reporting whether there was one.
func (l *limiter) allow() bool {
	now := l.now()
	l.tokens = min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.rate)
	l.last = now
	if l.tokens < 1 {
		return false
	}
	l.tokens--
	return true
}
