package ratelimit

import (
	"testing"
	"time"

	"github.com/kejanest/kejanest/authsvc/internal/config"
)

func TestLimiter(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	r, err := config.ParseRate("3/1m", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	l := New(r, func() time.Time { return now })
	for i := range 3 {
		if !l.Allow("a") {
			t.Fatalf("event %d refused", i)
		}
	}
	if l.Allow("a") {
		t.Fatal("4th event allowed")
	}
	if !l.Allow("b") {
		t.Fatal("other key refused")
	}
	now = now.Add(20 * time.Second) // one event refilled
	if !l.Allow("a") || l.Allow("a") {
		t.Fatal("refill wrong")
	}
	off := New(config.Rate{}, nil)
	for range 100 {
		if !off.Allow("x") {
			t.Fatal("disabled limiter refused")
		}
	}
}

func TestParseRate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want config.Rate
		bad  bool
	}{
		{"10/1h", config.Rate{Events: 10, OverTime: time.Hour}, false},
		{"30", config.Rate{Events: 30, OverTime: 5 * time.Minute}, false},
		{"1.5/30s", config.Rate{Events: 1.5, OverTime: 30 * time.Second}, false},
		{"x/1h", config.Rate{}, true},
		{"10/soon", config.Rate{}, true},
	}
	for _, tt := range tests {
		got, err := config.ParseRate(tt.in, 5*time.Minute)
		if (err != nil) != tt.bad || (!tt.bad && got != tt.want) {
			t.Errorf("ParseRate(%q) = %v, %v", tt.in, got, err)
		}
	}
}
