package ratelimit

import (
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/kejanest/kejanest/authsvc/internal/config"
)

// OverCapTries is how many times a source may have failed at an account,
// with no pause as long as the account's window between failures, and still
// be let try once the account's cap is spent. The owner, who has not been
// guessing, may so mistype twice and still sign in; a guesser needs a fresh
// source for every OverCapTries guesses.
const OverCapTries = 3

// Failures guards password sign-in. Like Auth0's brute-force protection it
// counts failures, not attempts, per (account, source), reset by a success,
// so that one source's guesses never use up another's budget; like Entra
// ID's smart lockout, failures elsewhere do not lock out the owner.
//
//   - perSource allows Events failures per OverTime for each (account,
//     source) pair, a token bucket. A successful sign-in from the source
//     forgets the pair.
//   - perAccount caps failures at an account from all sources together, a
//     token bucket too. While it has a token, any source within its own
//     budget may try. Once it is spent, a source may try only if it has
//     failed at the account fewer than OverCapTries times since it last
//     paused for the account's window, or whenever the cap refills a token
//     (so a guesser is slowed to the cap's rate, not stopped). Failures
//     over the cap still count, down to a debt of one cap, so guessers
//     spread over many sources keep the refill lane closed.
//
// The owner, typing the right password from a source that has not been
// guessing, is therefore never refused, whatever other sources do; a
// guesser gets at most perSource per source while the account is under its
// cap, and at most OverCapTries per fresh source (IPv4 address, IPv6 /64:
// see Source) plus the cap's refill once it is over. An attempt is counted
// before the password is checked and refunded if it succeeds, so parallel
// requests cannot overrun either budget. A rate with Events <= 0 turns that
// budget off. Failures is safe for concurrent use.
type Failures struct {
	perSource, perAccount config.Rate
	now                   func() time.Time
	mu                    sync.Mutex
	sources               map[sourceKey]*sourceState
	accounts              map[string]*bucket
	sweep                 time.Time
}

type sourceKey struct{ account, source string }

// sourceState is one (account, source) pair.
type sourceState struct {
	bucket // its own budget (perSource)
	// recent counts failures since the source last paused for a whole
	// perAccount window; lastFailure is the newest.
	recent      int
	lastFailure time.Time
}

// NewFailures returns a guard with the two budgets; now nil means
// time.Now.
func NewFailures(perSource, perAccount config.Rate, now func() time.Time) *Failures {
	if now == nil {
		now = time.Now
	}
	return &Failures{perSource: perSource, perAccount: perAccount, now: now,
		sources: map[sourceKey]*sourceState{}, accounts: map[string]*bucket{}}
}

// Attempt is one password check that Failures.Begin let through. It counts
// as a failure of its source at its account unless Succeeded is called, so
// every way out of a sign-in other than success is a failure.
type Attempt struct {
	f   *Failures
	key sourceKey
	// charged: the attempt took a token from the account's cap.
	charged bool
}

// Begin decides whether source may check a password for account now and,
// if so, counts the attempt as a failure until Succeeded says otherwise.
// Call it before looking the account up, so that the answer is the same for
// addresses that have no account.
func (f *Failures) Begin(account, source string) (Attempt, bool) {
	if f == nil || (!on(f.perSource) && !on(f.perAccount)) {
		return Attempt{}, true
	}
	now := f.now()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sweepLocked(now)

	key := sourceKey{account, source}
	s, known := f.sources[key]
	if !known {
		s = &sourceState{bucket: bucket{tokens: f.perSource.Events, last: now}}
	}
	s.refill(f.perSource, now)
	if on(f.perAccount) && now.Sub(s.lastFailure) >= f.perAccount.OverTime {
		s.recent = 0
	}
	if on(f.perSource) && s.tokens < 1 {
		return Attempt{}, false
	}
	var acct *bucket
	if on(f.perAccount) {
		var ok bool
		if acct, ok = f.accounts[account]; !ok {
			acct = &bucket{tokens: f.perAccount.Events, last: now}
		}
		acct.refill(f.perAccount, now)
		if acct.tokens < 1 && s.recent >= OverCapTries {
			return Attempt{}, false
		}
	}

	if on(f.perSource) {
		s.tokens--
	}
	s.recent++
	s.lastFailure = now
	if !known {
		// Keys outlive the request; callers may pass strings that point
		// into a reused request buffer.
		key = sourceKey{strings.Clone(account), strings.Clone(source)}
		f.sources[key] = s
	}
	a := Attempt{f: f, key: key}
	if acct != nil {
		if acct.tokens > -f.perAccount.Events {
			acct.tokens--
			a.charged = true
		}
		if _, ok := f.accounts[account]; !ok {
			f.accounts[strings.Clone(account)] = acct
		}
	}
	return a, true
}

// Succeeded records that the attempt's password was right: the source's
// count at the account starts afresh and the account's cap gets its token
// back.
func (a Attempt) Succeeded() {
	f := a.f
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.sources, a.key)
	if b, ok := f.accounts[a.key.account]; ok && a.charged {
		b.tokens = min(b.tokens+1, f.perAccount.Events)
	}
}

// sweepLocked forgets, at most once per window, the pairs and accounts
// whose budgets have refilled and whose failures are no longer recent.
func (f *Failures) sweepLocked(now time.Time) {
	window := max(f.perSource.OverTime, f.perAccount.OverTime)
	if now.Sub(f.sweep) <= window {
		return
	}
	f.sweep = now
	for k, s := range f.sources {
		if now.Sub(s.lastFailure) >= window {
			delete(f.sources, k)
		}
	}
	for k, b := range f.accounts {
		if b.tokens+now.Sub(b.last).Seconds()*perSecond(f.perAccount) >= f.perAccount.Events {
			delete(f.accounts, k)
		}
	}
}

// Source is the key a client address counts under in Failures: an IPv4
// address as it is (an IPv4-mapped IPv6 address as its IPv4 address), an
// IPv6 address as the /64 it belongs to, since one subscriber is usually
// given a whole /64 and counting single IPv6 addresses would hand a guesser
// 2^64 fresh sources. Anything else is returned unchanged.
func Source(ip string) string {
	addr, err := netip.ParseAddr(strings.TrimSpace(ip))
	if err != nil {
		return ip
	}
	addr = addr.Unmap().WithZone("")
	if addr.Is4() {
		return addr.String()
	}
	p, err := addr.Prefix(64)
	if err != nil {
		return ip
	}
	return p.String()
}

func on(r config.Rate) bool { return r.Events > 0 && r.OverTime > 0 }

func perSecond(r config.Rate) float64 {
	if !on(r) {
		return 0
	}
	return r.Events / r.OverTime.Seconds()
}
