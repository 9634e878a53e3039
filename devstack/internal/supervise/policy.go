package supervise

import "time"

// Policy says when a service that exited without being asked to is started
// again, and when the supervisor stops trying.
type Policy struct {
	// FirstDelay is the wait before restarting a service that crashed
	// after a stable run. Each further crash without a stable run in
	// between doubles the wait, up to MaxDelay.
	FirstDelay, MaxDelay time.Duration
	// StableAfter is how long a service must have been ready for its next
	// crash to count as a fresh one (waiting FirstDelay again).
	StableAfter time.Duration
	// MaxCrashes is how many crashes of one service within Window are
	// tolerated; the next one makes the supervisor give up. Zero means
	// never give up.
	MaxCrashes int
	Window     time.Duration
	// ReadyTimeout bounds the wait for a restarted service's health
	// endpoint; a service not ready by then is stopped and counts as
	// having crashed again.
	ReadyTimeout time.Duration
}

// DefaultPolicy is what `make run` and the ephemeral test stack use: 100 ms
// doubling to 5 s, a fresh start after 10 s of stable running, and giving up
// on the 11th crash within a minute. A service that crashes at once every
// time reaches that after about 25 s of backoff, which ends a stack that
// cannot work (a broken binary, a bad migration) with its log on screen
// instead of restarting it forever in the background.
var DefaultPolicy = Policy{
	FirstDelay:   100 * time.Millisecond,
	MaxDelay:     5 * time.Second,
	StableAfter:  10 * time.Second,
	MaxCrashes:   10,
	Window:       time.Minute,
	ReadyTimeout: 30 * time.Second,
}

// crashRecord is one service's history of unrequested exits.
type crashRecord struct {
	streak int         // crashes since the last stable run
	recent []time.Time // crashes within the policy's window, oldest first
}

// verdict is the policy's answer to one crash.
type verdict struct {
	delay  time.Duration // wait before starting the service again
	recent int           // crashes within the window, this one included
	giveUp bool          // too many crashes: stop the stack instead
}

// decide records a crash at now of a run that had been ready for uptime
// (zero if it never became ready) and says what to do next.
func (p Policy) decide(r *crashRecord, now time.Time, uptime time.Duration) verdict {
	if uptime >= p.StableAfter {
		r.streak = 0
	}
	r.streak++
	kept := r.recent[:0]
	for _, t := range r.recent {
		if now.Sub(t) < p.Window {
			kept = append(kept, t)
		}
	}
	r.recent = append(kept, now)
	return verdict{
		delay:  p.backoff(r.streak),
		recent: len(r.recent),
		giveUp: p.MaxCrashes > 0 && len(r.recent) > p.MaxCrashes,
	}
}

// backoff is the wait before restart number streak of a crash streak
// (1 for the first crash after a stable run).
func (p Policy) backoff(streak int) time.Duration {
	d := p.FirstDelay
	for i := 1; i < streak && d < p.MaxDelay; i++ {
		d *= 2
	}
	return min(d, p.MaxDelay)
}
