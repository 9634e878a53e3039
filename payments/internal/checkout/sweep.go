package checkout

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/kejanest/kejanest/payments/internal/daraja"
	"github.com/kejanest/kejanest/payments/internal/store"
)

// SweepBatch bounds the purchases one sweep looks at; the rest wait for the
// next tick.
const SweepBatch = 100

// SweepConfig is the sweep's timing.
type SweepConfig struct {
	// QueryAfter: a pending purchase pushed this long ago is asked about
	// with STK query.
	QueryAfter time.Duration
	// ExpireAfter: a pending purchase this old that M-Pesa still has no
	// answer for (or that was never pushed) fails as expired.
	ExpireAfter time.Duration
}

// SweepStats counts what one sweep did.
type SweepStats struct {
	// Ran is false when another replica held the sweep lock.
	Ran                                   bool
	Seen, Credited, Failed, Expired, Left int
}

// Sweep resolves pending purchases whose callback has not come: once per
// tick across every replica (a session advisory lock), each purchase by
// Daraja's STK query, or as expired when no answer comes in time. A query
// that fails for a reason other than "still processing" leaves the
// purchase for the next tick.
func (s *Service) Sweep(ctx context.Context, cfg SweepConfig) (SweepStats, error) {
	var st SweepStats
	ran, err := s.Store.WithSweepLock(ctx, func(ctx context.Context) error {
		pending, err := s.Store.Pending(ctx, cfg.QueryAfter, cfg.ExpireAfter, SweepBatch)
		if err != nil {
			return err
		}
		for _, p := range pending {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			st.Seen++
			s.sweepOne(ctx, p, &st)
		}
		return nil
	})
	st.Ran = ran
	return st, err
}

func (s *Service) sweepOne(ctx context.Context, p store.Pending, st *SweepStats) {
	expire := func(why string) {
		if !p.Expired {
			st.Left++
			return
		}
		if _, err := s.Store.Resolve(ctx, p.ID, nil, why, "expired", store.ViaExpiry); err != nil {
			s.Log.Error("expire purchase", "purchase_id", p.ID, "error", err.Error())
			return
		}
		st.Expired++
		s.Log.Info("purchase expired", "purchase_id", p.ID, "reason", why)
	}
	if p.CheckoutRequestID == "" {
		expire("The payment prompt was never confirmed by M-Pesa.")
		return
	}
	q, err := s.Daraja.STKQuery(ctx, p.CheckoutRequestID)
	var ae *daraja.APIError
	switch {
	case errors.Is(err, daraja.ErrProcessing):
		expire("M-Pesa gave no answer in time.")
		return
	case errors.Is(err, daraja.ErrAccessToken), errors.As(err, &ae) && ae.Status == http.StatusTooManyRequests:
		// Our credentials or Daraja's rate limit, not the payment: a write-off
		// now would lose a payment that may have been made. Ask again later.
		s.Log.Warn("stk query not made; will retry", "purchase_id", p.ID, "error", err.Error())
		st.Left++
		return
	case errors.As(err, &ae) && ae.Status >= 400 && ae.Status < 500 && ae.Code != daraja.CodeInvalidToken:
		// Daraja does not know the checkout (or refuses to say).
		s.Log.Warn("stk query refused", "purchase_id", p.ID, "error", err.Error())
		expire("M-Pesa does not know this payment: " + ae.Message)
		return
	case err != nil:
		s.Log.Warn("stk query failed; will retry", "purchase_id", p.ID, "error", err.Error())
		st.Left++
		return
	}
	code, _ := q.ResultCode.Int()
	rc := int(code)
	outcome, err := s.Store.Resolve(ctx, p.ID, &rc, q.ResultDesc, FailureCode(rc), store.ViaQuery)
	if err != nil {
		s.Log.Error("resolve purchase from stk query", "purchase_id", p.ID, "error", err.Error())
		return
	}
	switch outcome {
	case store.Credited:
		st.Credited++
	case store.Failed:
		st.Failed++
	}
	s.Log.Info("purchase resolved by stk query", "purchase_id", p.ID, "outcome", outcome, "result_code", rc)
}

// SweepEvery runs Sweep at each interval until ctx ends. A failed sweep is
// logged and retried at the next tick.
func (s *Service) SweepEvery(ctx context.Context, interval time.Duration, cfg SweepConfig) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		st, err := s.Sweep(ctx, cfg)
		if err != nil {
			if ctx.Err() == nil {
				s.Log.Warn("lost-callback sweep failed", "error", err.Error())
			}
			continue
		}
		if st.Seen > 0 {
			s.Log.Info("lost-callback sweep", "seen", st.Seen, "credited", st.Credited, "failed", st.Failed,
				"expired", st.Expired, "left", st.Left)
		}
	}
}
