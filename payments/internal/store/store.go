// Package store holds every SQL statement the payments service runs. Each
// operation is one transaction whose first statement switches to the role
// it runs as and sets the JWT claims (supabase-compat.md §1.6): the buyer's
// own role and claims to create a purchase, so auth.uid() and the database
// function's checks decide; service_role for the payment-service
// functions of sql/migrations/0025_mpesa_payments.sql.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Errors the callers turn into answers.
var (
	// ErrPackageNotFound: no active package with that id.
	ErrPackageNotFound = errors.New("package not found")
	// ErrInvalidPhone: neither the given number nor the profile's is an
	// M-Pesa number.
	ErrInvalidPhone = errors.New("enter a valid M-Pesa phone number")
	// ErrSuspended: the buyer's account is suspended.
	ErrSuspended = errors.New("your account is suspended")
	// ErrTooManyPending: the buyer already has the most purchases that may
	// wait for confirmation at once (create_nestcoin_purchase, 0046).
	ErrTooManyPending = errors.New("you have payments waiting for confirmation")
	// ErrNotSignedIn: the claims carry no usable user.
	ErrNotSignedIn = errors.New("not authenticated")
	// ErrUnknownCallback: no purchase matches the callback's id, secret and
	// CheckoutRequestID.
	ErrUnknownCallback = errors.New("unknown M-Pesa callback")
)

// Outcomes of settling a purchase (the SQL functions' answers).
const (
	Credited  = "credited"
	Failed    = "failed"
	Duplicate = "duplicate"
	Conflict  = "conflict"
)

// Ways a purchase is settled without a callback.
const (
	ViaQuery  = "query"
	ViaPush   = "push"
	ViaExpiry = "expiry"
)

// serviceClaims are the claims of the service's own transactions.
const serviceClaims = `{"role":"service_role"}`

// sweepLockKey names the session advisory lock of the lost-callback sweep.
const sweepLockKey = "kejanest.mpesa_sweep"

// Caller is a signed-in buyer: the verified token's role and payload.
type Caller struct {
	Role   string
	Claims json.RawMessage
}

// Purchase is what the service needs of a nestcoin_purchases row.
type Purchase struct {
	ID                string
	Coins             int64
	AmountKES         int64
	Phone             string
	Status            string
	CheckoutRequestID string
}

// Pending is a purchase the sweep looks at.
type Pending struct {
	ID                string
	CheckoutRequestID string // "" when the push was never recorded
	// Expired is true once the purchase is older than the expiry age (by
	// the database's clock).
	Expired bool
}

// Store runs the statements on a pool connected as authenticator.
type Store struct {
	pool *pgxpool.Pool
}

// New returns a Store on pool.
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// preamble switches the transaction to a role with its claims.
const preamble = `select set_config('role', $1, true), set_config('request.jwt.claims', $2, true), set_config('search_path', '', true)`

func as(ctx context.Context, tx pgx.Tx, role string, claims string) error {
	if _, err := tx.Exec(ctx, preamble, role, claims); err != nil {
		return fmt.Errorf("switch to %s: %w", role, err)
	}
	return nil
}

// service runs fn in one service_role transaction.
func (s *Store) service(ctx context.Context, mode pgx.TxAccessMode, fn func(pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.ReadCommitted, AccessMode: mode}, func(tx pgx.Tx) error {
		if err := as(ctx, tx, "service_role", serviceClaims); err != nil {
			return err
		}
		return fn(tx)
	})
}

// CreatePurchase creates a pending purchase of packageID as the buyer
// (public.create_nestcoin_purchase, with phone, or the profile's number
// when phone is ""), then registers the hash of its callback secret
// (public.begin_mpesa_checkout, as service_role), in one transaction.
func (s *Store) CreatePurchase(ctx context.Context, buyer Caller, packageID, phone string, secretHash []byte) (Purchase, error) {
	var p Purchase
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, func(tx pgx.Tx) error {
		if err := as(ctx, tx, buyer.Role, string(buyer.Claims)); err != nil {
			return err
		}
		var ph *string
		if phone != "" {
			ph = &phone
		}
		if err := tx.QueryRow(ctx, `select p.id::text, p.coins, p.amount_kes, p.phone, p.status
			from public.create_nestcoin_purchase($1::uuid, $2) p`, packageID, ph).
			Scan(&p.ID, &p.Coins, &p.AmountKES, &p.Phone, &p.Status); err != nil {
			return mapCreate(err)
		}
		if err := as(ctx, tx, "service_role", serviceClaims); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `select public.begin_mpesa_checkout($1::uuid, $2)`, p.ID, secretHash); err != nil {
			return fmt.Errorf("begin checkout: %w", err)
		}
		return nil
	})
	if err != nil {
		return Purchase{}, err
	}
	return p, nil
}

// mapCreate turns create_nestcoin_purchase's refusals into errors.
func mapCreate(err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return fmt.Errorf("create purchase: %w", err)
	}
	switch {
	case pe.Code == "P0001" && pe.Message == "Package not found", pe.Code == "22P02":
		return ErrPackageNotFound
	case pe.Code == "P0001" && pe.Message == "Enter a valid M-Pesa phone number":
		return ErrInvalidPhone
	case pe.Code == "42501" && pe.Message == "Your account is suspended":
		return ErrSuspended
	case pe.Code == "P0001" && pe.Message == "You have payments waiting for confirmation":
		return ErrTooManyPending
	case pe.Code == "42501":
		return ErrNotSignedIn
	}
	return fmt.Errorf("create purchase: %w", err)
}

// RecordPush stores the ids Daraja gave an accepted push.
func (s *Store) RecordPush(ctx context.Context, purchaseID, checkoutRequestID, merchantRequestID string) error {
	return s.service(ctx, pgx.ReadWrite, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `select public.record_mpesa_stk_push($1::uuid, $2, $3)`, purchaseID, checkoutRequestID, merchantRequestID); err != nil {
			return fmt.Errorf("record push: %w", err)
		}
		return nil
	})
}

// Settlement is one callback's content, checked against the purchase.
type Settlement struct {
	PurchaseID        string
	SecretHash        []byte
	CheckoutRequestID string
	MerchantRequestID string
	ResultCode        int
	ResultDesc        string
	FailureCode       string // "" for a success
	Receipt           string // "" for a failure
	// Amount is the paid amount; nil when the callback has none that is a
	// whole number of shillings.
	Amount *int64
}

// SettleCallback settles a purchase from its callback
// (public.settle_mpesa_callback): Credited, Failed, Duplicate or Conflict,
// or ErrUnknownCallback for a forgery.
func (s *Store) SettleCallback(ctx context.Context, st Settlement) (string, error) {
	var outcome string
	err := s.service(ctx, pgx.ReadWrite, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `select public.settle_mpesa_callback($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9)`,
			st.PurchaseID, st.SecretHash, st.CheckoutRequestID, nullable(st.MerchantRequestID), st.ResultCode,
			nullable(st.ResultDesc), nullable(st.FailureCode), nullable(st.Receipt), st.Amount).Scan(&outcome)
	})
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (pe.Code == "42501" || pe.Code == "22P02") {
		return "", ErrUnknownCallback
	}
	if err != nil {
		return "", fmt.Errorf("settle callback: %w", err)
	}
	return outcome, nil
}

// Resolve settles a purchase without a callback
// (public.resolve_mpesa_purchase): an STK query's result (via ViaQuery),
// a refused push (ViaPush, resultCode nil) or no answer (ViaExpiry).
func (s *Store) Resolve(ctx context.Context, purchaseID string, resultCode *int, resultDesc, failureCode, via string) (string, error) {
	var outcome string
	err := s.service(ctx, pgx.ReadWrite, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `select public.resolve_mpesa_purchase($1::uuid, $2, $3, $4, $5)`,
			purchaseID, resultCode, nullable(resultDesc), nullable(failureCode), via).Scan(&outcome)
	})
	if err != nil {
		return "", fmt.Errorf("resolve purchase: %w", err)
	}
	return outcome, nil
}

// Pending lists up to limit pending purchases pushed (or, if never pushed,
// created) more than queryAfter ago, oldest first, each marked Expired when
// older than expireAfter.
func (s *Store) Pending(ctx context.Context, queryAfter, expireAfter time.Duration, limit int) ([]Pending, error) {
	var out []Pending
	err := s.service(ctx, pgx.ReadOnly, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `select p.id::text, coalesce(p.checkout_request_id, ''),
			       coalesce(p.stk_sent_at, p.created_at) < now() - make_interval(secs => $2)
			  from public.nestcoin_purchases p
			 where p.status = 'pending' and coalesce(p.stk_sent_at, p.created_at) < now() - make_interval(secs => $1)
			 order by coalesce(p.stk_sent_at, p.created_at)
			 limit $3`, queryAfter.Seconds(), expireAfter.Seconds(), limit)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Pending, error) {
			var p Pending
			err := r.Scan(&p.ID, &p.CheckoutRequestID, &p.Expired)
			return p, err
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list pending purchases: %w", err)
	}
	return out, nil
}

// WithSweepLock runs fn while holding the sweep's session advisory lock, so
// one replica at a time sweeps; it returns false without running fn when
// another holds it. The lock lives on one pooled connection, and dies with
// it if the process does.
func (s *Store) WithSweepLock(ctx context.Context, fn func(context.Context) error) (bool, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return false, fmt.Errorf("acquire connection: %w", err)
	}
	var mine bool
	if err := conn.QueryRow(ctx, `select pg_try_advisory_lock(hashtextextended($1, 0))`, sweepLockKey).Scan(&mine); err != nil {
		conn.Release()
		return false, fmt.Errorf("sweep lock: %w", err)
	}
	if !mine {
		conn.Release()
		return false, nil
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, `select pg_advisory_unlock(hashtextextended($1, 0))`, sweepLockKey); err != nil {
			// A connection that may still hold the lock must not go back
			// to the pool.
			_ = conn.Conn().Close(uctx)
		}
		conn.Release()
	}()
	return true, fn(ctx)
}

// Ping checks the database, for /ready.
func (s *Store) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
