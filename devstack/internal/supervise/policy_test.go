package supervise

import (
	"testing"
	"time"
)

func TestPolicyDecide(t *testing.T) {
	t.Parallel()
	policy := Policy{FirstDelay: 100 * time.Millisecond, MaxDelay: 5 * time.Second, StableAfter: 10 * time.Second,
		MaxCrashes: 4, Window: time.Minute}
	type crash struct {
		at     time.Duration // since the first crash
		uptime time.Duration // how long the run had been ready
	}
	type want struct {
		delay  time.Duration
		recent int
		giveUp bool
	}
	tests := []struct {
		name    string
		policy  Policy
		crashes []crash
		want    []want
	}{
		{
			name:    "one crash after a long run waits the first delay",
			policy:  policy,
			crashes: []crash{{0, time.Hour}},
			want:    []want{{100 * time.Millisecond, 1, false}},
		},
		{
			name:   "crashes in a row double the delay up to the cap",
			policy: Policy{FirstDelay: 100 * time.Millisecond, MaxDelay: 5 * time.Second, StableAfter: 10 * time.Second, Window: time.Minute},
			crashes: []crash{{0, time.Hour}, {time.Second, 0}, {2 * time.Second, 0}, {3 * time.Second, 0}, {4 * time.Second, 0},
				{5 * time.Second, 0}, {6 * time.Second, 0}, {7 * time.Second, 0}, {8 * time.Second, 0}},
			want: []want{
				{100 * time.Millisecond, 1, false}, {200 * time.Millisecond, 2, false}, {400 * time.Millisecond, 3, false},
				{800 * time.Millisecond, 4, false}, {1600 * time.Millisecond, 5, false}, {3200 * time.Millisecond, 6, false},
				{5 * time.Second, 7, false}, {5 * time.Second, 8, false}, {5 * time.Second, 9, false},
			},
		},
		{
			name:    "a stable run resets the backoff",
			policy:  policy,
			crashes: []crash{{0, time.Hour}, {time.Second, time.Second}, {3 * time.Second, 2 * time.Second}, {20 * time.Second, 15 * time.Second}},
			want:    []want{{100 * time.Millisecond, 1, false}, {200 * time.Millisecond, 2, false}, {400 * time.Millisecond, 3, false}, {100 * time.Millisecond, 4, false}},
		},
		{
			name:    "more crashes than allowed within the window give up",
			policy:  policy,
			crashes: []crash{{0, time.Hour}, {time.Second, 0}, {2 * time.Second, 0}, {3 * time.Second, 0}, {4 * time.Second, 0}},
			want: []want{{100 * time.Millisecond, 1, false}, {200 * time.Millisecond, 2, false}, {400 * time.Millisecond, 3, false},
				{800 * time.Millisecond, 4, false}, {1600 * time.Millisecond, 5, true}},
		},
		{
			name:   "crashes older than the window are forgotten",
			policy: policy,
			crashes: []crash{{0, time.Hour}, {10 * time.Second, 0}, {20 * time.Second, 0}, {30 * time.Second, 0},
				{70 * time.Second, 0}, {95 * time.Second, 0}},
			want: []want{{100 * time.Millisecond, 1, false}, {200 * time.Millisecond, 2, false}, {400 * time.Millisecond, 3, false},
				{800 * time.Millisecond, 4, false}, {1600 * time.Millisecond, 3, false}, {3200 * time.Millisecond, 2, false}},
		},
		{
			name:    "zero MaxCrashes never gives up",
			policy:  Policy{FirstDelay: time.Millisecond, MaxDelay: time.Millisecond, StableAfter: time.Second, Window: time.Minute},
			crashes: []crash{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}},
			want: []want{{time.Millisecond, 1, false}, {time.Millisecond, 2, false}, {time.Millisecond, 3, false},
				{time.Millisecond, 4, false}, {time.Millisecond, 5, false}, {time.Millisecond, 6, false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			var r crashRecord
			for i, c := range tt.crashes {
				v := tt.policy.decide(&r, start.Add(c.at), c.uptime)
				got := want{v.delay, v.recent, v.giveUp}
				if got != tt.want[i] {
					t.Errorf("crash %d: got %+v, want %+v", i+1, got, tt.want[i])
				}
			}
		})
	}
}

func TestDefaultPolicyGivesUpWithinAMinute(t *testing.T) {
	t.Parallel()
	// A service that dies at once every time: the backoff alone must reach
	// the give-up well inside the window, or it would never be reached.
	var r crashRecord
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 1; ; i++ {
		v := DefaultPolicy.decide(&r, now, 0)
		if v.giveUp {
			if elapsed := now.Sub(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)); elapsed > 30*time.Second {
				t.Errorf("gave up after %v of crash loop", elapsed)
			}
			if i != DefaultPolicy.MaxCrashes+1 {
				t.Errorf("gave up on crash %d, want %d", i, DefaultPolicy.MaxCrashes+1)
			}
			return
		}
		if i > 100 {
			t.Fatal("never gave up")
		}
		now = now.Add(v.delay + 50*time.Millisecond) // the delay plus a quick failed start
	}
}
