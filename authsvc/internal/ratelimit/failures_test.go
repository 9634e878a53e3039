package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kejanest/kejanest/authsvc/internal/config"
)

// try is one password check in a Failures scenario.
type try struct {
	wait    time.Duration // clock advance before it
	source  string
	account string // "" means "victim"
	right   bool   // the password is right (Succeeded is called)
	times   int    // repeat count; 0 means 1
	allowed bool   // Begin lets every repetition through
}

// TestFailures: the sign-in guard's rules, run by the SQL function with
// the clock passed in. The cases share one database; each counts at
// accounts of its own.
func TestFailures(t *testing.T) {
	t.Parallel()
	st := newStores(t, 1)[0]
	tests := []struct {
		name                  string
		perSource, perAccount config.Rate
		tries                 []try
	}{
		{
			name: "one guesser's failures do not touch the owner's budget", perSource: rate(3, 5*time.Minute), perAccount: rate(100, time.Hour),
			tries: []try{
				{source: "attacker", times: 3, allowed: true},
				{source: "attacker", allowed: false},
				{source: "attacker", right: true, allowed: false}, // its budget, whatever the password
				{source: "owner", right: true, allowed: true},
				{source: "owner", right: true, times: 10, allowed: true}, // successes cost nothing
			},
		},
		{
			name: "the source's budget refills", perSource: rate(3, 3*time.Minute), perAccount: rate(100, time.Hour),
			tries: []try{
				{source: "a", times: 3, allowed: true},
				{source: "a", allowed: false},
				{wait: time.Minute, source: "a", allowed: true},
				{source: "a", allowed: false},
			},
		},
		{
			name: "success from a source forgets its failures", perSource: rate(3, 5*time.Minute), perAccount: rate(100, time.Hour),
			tries: []try{
				{source: "owner", times: 2, allowed: true},
				{source: "owner", right: true, allowed: true},
				{source: "owner", times: 3, allowed: true},
				{source: "owner", allowed: false},
			},
		},
		{
			name: "accounts are counted apart", perSource: rate(2, 5*time.Minute), perAccount: rate(2, time.Hour),
			tries: []try{
				{source: "a", times: 2, allowed: true},
				{source: "a", allowed: false},
				{source: "a", account: "other", times: 2, allowed: true},
			},
		},
		{
			name: "over the account cap: fresh sources may try, guessing ones may not", perSource: rate(5, 5*time.Minute), perAccount: rate(10, time.Hour),
			tries: []try{
				{source: "a1", times: 5, allowed: true},
				{source: "a2", times: 5, allowed: true}, // cap spent
				{wait: 2 * time.Minute, source: "a1", allowed: false},
				// A fresh source gets OverCapTries, not its whole budget.
				{source: "a3", times: OverCapTries, allowed: true},
				{source: "a3", allowed: false},
				// The owner, at a source that has not been guessing, is let
				// through, and may mistype OverCapTries-1 times first.
				{source: "owner", right: true, allowed: true},
				{source: "owner-phone", times: OverCapTries - 1, allowed: true},
				{source: "owner-phone", right: true, allowed: true},
			},
		},
		{
			name: "over the cap, guessing is slowed to the cap's refill, not stopped", perSource: rate(5, 5*time.Minute), perAccount: rate(10, time.Hour),
			tries: []try{
				{source: "a1", times: 5, allowed: true},
				{source: "a2", times: 5, allowed: true}, // cap spent: one token per 6 minutes
				{wait: 5 * time.Minute, source: "a1", allowed: false},
				{wait: 1 * time.Minute, source: "a1", allowed: true},
				{source: "a1", allowed: false},
				{source: "a2", allowed: false},
				{wait: 6 * time.Minute, source: "a2", allowed: true},
			},
		},
		{
			name: "fresh sources over the cap keep the refill lane shut", perSource: rate(5, 5*time.Minute), perAccount: rate(10, time.Hour),
			tries: []try{
				{source: "a1", times: 5, allowed: true},
				{source: "a2", times: 5, allowed: true},
				// Nine more failures from fresh sources: the account owes 9.
				{source: "b1", times: 3, allowed: true},
				{source: "b2", times: 3, allowed: true},
				{source: "b3", times: 3, allowed: true},
				{wait: 6 * time.Minute, source: "a1", allowed: false},
				{wait: 54 * time.Minute, source: "a1", allowed: true}, // a1 paused for a whole window
			},
		},
		{
			name: "a source that pauses for the account's window counts afresh", perSource: rate(5, 5*time.Minute), perAccount: rate(10, 10*time.Hour),
			tries: []try{
				{source: "a1", times: 5, allowed: true},
				{source: "a2", times: 5, allowed: true},
				{source: "b1", times: 3, allowed: true},
				{source: "b2", times: 3, allowed: true},
				{source: "b3", times: 3, allowed: true},
				{source: "b4", times: 1, allowed: true}, // the account owes a whole cap
				{wait: 10 * time.Minute, source: "a1", allowed: false},
				// Ten hours on the cap is back at zero, no refill lane; a1
				// has paused for the window and is a fresh source again.
				{wait: 10*time.Hour - 10*time.Minute, source: "a1", times: OverCapTries, allowed: true},
				{source: "a1", allowed: false},
			},
		},
		{
			name: "no account cap", perSource: rate(2, 5*time.Minute),
			tries: []try{
				{source: "a", times: 2, allowed: true},
				{source: "a", allowed: false},
				{source: "b", times: 2, allowed: true},
				{source: "c", times: 2, allowed: true},
			},
		},
		{
			name: "no source limit, only the account cap", perAccount: rate(3, time.Hour),
			tries: []try{
				{source: "a", times: 3, allowed: true},
				{source: "a", allowed: false},
				{source: "b", right: true, allowed: true},
			},
		},
		{
			name: "both off", tries: []try{{source: "a", times: 1000, allowed: true}},
		},
	}
	for c, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			now := time.Unix(1_000_000, 0)
			f := NewFailures(st, tt.perSource, tt.perAccount, func() time.Time { return now })
			for i, tr := range tt.tries {
				now = now.Add(tr.wait)
				account := tr.account
				if account == "" {
					account = "victim"
				}
				account = fmt.Sprint("case", c, ":", account)
				for n := range max(tr.times, 1) {
					a, ok, err := f.Begin(ctx, account, tr.source)
					if err != nil {
						t.Fatal(err)
					}
					if ok != tr.allowed {
						t.Fatalf("try %d (%s, repetition %d): allowed = %v, want %v", i, tr.source, n+1, ok, tr.allowed)
					}
					if ok && tr.right {
						if err := a.Succeeded(ctx); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		})
	}
}

// TestFailuresParallel: attempts are counted before the password is
// checked, so a burst of parallel guesses spread over two replicas cannot
// overrun a budget.
func TestFailuresParallel(t *testing.T) {
	t.Parallel()
	replicas := newStores(t, 2)
	guards := []*Failures{
		NewFailures(replicas[0], rate(30, 5*time.Minute), rate(100, time.Hour), nil),
		NewFailures(replicas[1], rate(30, 5*time.Minute), rate(100, time.Hour), nil),
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		allowed int
		errs    []error
	)
	for n := range 120 {
		wg.Go(func() {
			_, ok, err := guards[n%2].Begin(context.Background(), "victim", "attacker")
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			}
			if ok {
				allowed++
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if allowed != 30 {
		t.Errorf("%d parallel guesses let through, want 30", allowed)
	}
	if _, ok, err := guards[1].Begin(context.Background(), "victim", "owner"); !ok || err != nil {
		t.Errorf("owner refused: %v", err)
	}
}

// TestFailuresKeys: an account and a source cannot be cut differently to
// reach another pair's bucket.
func TestFailuresKeys(t *testing.T) {
	t.Parallel()
	st := newStores(t, 1)[0]
	ctx := context.Background()
	f := NewFailures(st, rate(1, time.Hour), config.Rate{}, nil)
	for _, try := range []struct {
		account, source string
		want            bool
	}{{"email:a@b.c", "1.2.3.4", true}, {"email:a@b.c", "1.2.3.4", false}, {"email:a@b.c1", ".2.3.4", true}, {"email:a@b.", "c1.2.3.4", true}} {
		if _, ok, err := f.Begin(ctx, try.account, try.source); err != nil || ok != try.want {
			t.Fatalf("(%s, %s): %v, %v; want %v", try.account, try.source, ok, err, try.want)
		}
	}
}

func TestSource(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"203.0.113.7", "203.0.113.7"},
		{" 203.0.113.7 ", "203.0.113.7"},
		{"::ffff:203.0.113.7", "203.0.113.7"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"},
		{"2001:db8:1:3::1", "2001:db8:1:3::/64"},
		{"fe80::1%eth0", "fe80::/64"},
		{"not an address", "not an address"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Source(tt.in); got != tt.want {
			t.Errorf("Source(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
