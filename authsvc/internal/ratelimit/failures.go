package ratelimit

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/kejanest/kejanest/authsvc/internal/config"
	"github.com/kejanest/kejanest/authsvc/internal/store"
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
// budget off. The counts live in the Store, for every replica together;
// Failures is safe for concurrent use.
type Failures struct {
	perSource, perAccount config.Rate
	store                 Store
	now                   func() time.Time
}

// The names of the two budgets' keys in the Store (see Limiter's name).
const (
	perSourceName  = "password_sign_in"
	perAccountName = "password_sign_in_account"
)

// NewFailures returns a guard with the two budgets over st; now nil means
// the store's clock.
func NewFailures(st Store, perSource, perAccount config.Rate, now func() time.Time) *Failures {
	return &Failures{perSource: perSource, perAccount: perAccount, store: st, now: now}
}

// Attempt is one password check that Failures.Begin let through. It counts
// as a failure of its source at its account unless Succeeded is called, so
// every way out of a sign-in other than success is a failure.
type Attempt struct {
	f                   *Failures
	pairKey, accountKey string
	// charged: the attempt took a token from the account's cap.
	charged bool
}

// Begin decides whether source may check a password for account now and,
// if so, counts the attempt as a failure until Succeeded says otherwise.
// Call it before looking the account up, so that the answer is the same for
// addresses that have no account. An error means the store could not say;
// the caller refuses the attempt (fails closed).
func (f *Failures) Begin(ctx context.Context, account, source string) (Attempt, bool, error) {
	if f == nil || (!on(f.perSource) && !on(f.perAccount)) {
		return Attempt{}, true, nil
	}
	c := store.SignInCheck{
		// The pair's subject is unambiguous: the account's length says
		// where the source starts.
		PairKey:      bucketKey(perSourceName, strconv.Itoa(len(account))+":"+account+source),
		AccountKey:   bucketKey(perAccountName, account),
		OverCapTries: OverCapTries,
		At:           clockOf(f.now),
	}
	if on(f.perSource) {
		c.SourceEvents, c.SourceWindow = f.perSource.Events, f.perSource.OverTime
	}
	if on(f.perAccount) {
		c.AccountEvents, c.AccountWindow = f.perAccount.Events, f.perAccount.OverTime
	}
	allowed, charged, err := f.store.BeginPasswordSignIn(ctx, c)
	if err != nil {
		return Attempt{}, false, fmt.Errorf("password sign-in limit: %w", err)
	}
	if !allowed {
		return Attempt{}, false, nil
	}
	return Attempt{f: f, pairKey: c.PairKey, accountKey: c.AccountKey, charged: charged}, true, nil
}

// Succeeded records that the attempt's password was right: the source's
// count at the account starts afresh and the account's cap gets its token
// back. If it fails, the attempt stays counted as a failure.
func (a Attempt) Succeeded(ctx context.Context) error {
	f := a.f
	if f == nil {
		return nil
	}
	if err := f.store.PasswordSignInSucceeded(ctx, a.pairKey, a.accountKey, a.charged, f.perAccount.Events); err != nil {
		return fmt.Errorf("password sign-in limit: %w", err)
	}
	return nil
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
