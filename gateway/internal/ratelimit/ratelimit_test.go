package ratelimit

import (
	"strconv"
	"sync"
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Rate
		wantErr bool
	}{
		{"", Rate{}, false},
		{"0", Rate{}, false},
		{"0/1m", Rate{}, false},
		{"600/1m", Rate{600, time.Minute}, false},
		{"10/1h", Rate{10, time.Hour}, false},
		{" 30/15s ", Rate{30, 15 * time.Second}, false},
		{"5", Rate{5, time.Second}, false},
		{"2.5", Rate{2.5, time.Second}, false},
		{"-1", Rate{}, true},
		{"10/0s", Rate{}, true},
		{"10/forever", Rate{}, true},
		{"x/1m", Rate{}, true},
		{"1.5/1m", Rate{}, true},
		{"many", Rate{}, true},
		{"NaN", Rate{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseRate(tc.in)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("ParseRate(%q) = %+v, %v; want %+v, err %v", tc.in, got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// clock is a manual clock safe for concurrent reads.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestLimiter(t *testing.T) {
	t.Parallel()
	t.Run("burst then refill", func(t *testing.T) {
		t.Parallel()
		clk := &clock{t: time.Unix(1_700_000_000, 0)}
		l := New(Rate{Events: 3, Per: time.Minute}, Options{Now: clk.Now})
		for i := range 3 {
			if ok, _ := l.Allow("a"); !ok {
				t.Fatalf("request %d refused", i+1)
			}
		}
		ok, wait := l.Allow("a")
		if ok || wait <= 0 || wait > 20*time.Second {
			t.Fatalf("4th: ok=%v wait=%v, want refused with ~20s", ok, wait)
		}
		if ok, _ := l.Allow("b"); !ok {
			t.Error("another key shares the bucket")
		}
		clk.Add(20 * time.Second)
		if ok, _ := l.Allow("a"); !ok {
			t.Error("not refilled after one interval")
		}
		if RetryAfterSeconds(1500*time.Millisecond) != 2 || RetryAfterSeconds(0) != 1 {
			t.Error("RetryAfterSeconds rounding")
		}
	})
	t.Run("nil limiter allows", func(t *testing.T) {
		t.Parallel()
		l := New(Rate{}, Options{})
		if ok, _ := l.Allow("x"); !ok || l != nil {
			t.Error("zero rate must disable limiting")
		}
	})
	t.Run("idle buckets evicted", func(t *testing.T) {
		t.Parallel()
		clk := &clock{t: time.Unix(1_700_000_000, 0)}
		l := New(Rate{Events: 10, Per: time.Second}, Options{Now: clk.Now})
		for i := range 100 {
			l.Allow("10.0.0." + strconv.Itoa(i))
		}
		clk.Add(2 * time.Minute)
		l.Allow("fresh")
		if n := l.Len(); n != 1 {
			t.Errorf("%d buckets after sweep, want 1", n)
		}
	})
	t.Run("bounded under a flood", func(t *testing.T) {
		t.Parallel()
		l := New(Rate{Events: 1, Per: time.Hour}, Options{MaxClients: 50})
		for i := range 1000 {
			l.Allow("k" + strconv.Itoa(i))
		}
		if n := l.Len(); n > 50 {
			t.Errorf("%d buckets, bound is 50", n)
		}
	})
	t.Run("concurrent", func(t *testing.T) {
		t.Parallel()
		l := New(Rate{Events: 100, Per: time.Hour}, Options{})
		var wg sync.WaitGroup
		var mu sync.Mutex
		allowed := 0
		for range 8 {
			wg.Go(func() {
				for range 50 {
					if ok, _ := l.Allow("same"); ok {
						mu.Lock()
						allowed++
						mu.Unlock()
					}
				}
			})
		}
		wg.Wait()
		if allowed != 100 {
			t.Errorf("allowed %d of 400, want exactly the burst of 100", allowed)
		}
	})
}
