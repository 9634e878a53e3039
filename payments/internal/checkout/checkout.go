// Package checkout is the M-Pesa purchase flow with no HTTP in it: start an
// STK push for a buyer, settle Safaricom's callback, and sweep up purchases
// whose callback never came. The database decides everything that must
// hold exactly once (sql/migrations/0025_mpesa_payments.sql); this package
// talks to Daraja and hands the database what it said.
package checkout

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"log/slog"
	"net"
	"net/url"
	"regexp"

	"github.com/kejanest/kejanest/payments/internal/daraja"
	"github.com/kejanest/kejanest/payments/internal/phone"
	"github.com/kejanest/kejanest/payments/internal/store"
)

// secretBytes is the size of a callback secret.
const secretBytes = 32

// Errors of Start besides the store's (store.ErrPackageNotFound, ...).
var (
	// ErrInvalidRequest: the package id is missing or not a UUID.
	ErrInvalidRequest = errors.New("package_id must be a package's id")
	// ErrInvalidPhone: the phone number is not an M-Pesa number.
	ErrInvalidPhone = phone.ErrInvalid
)

// PushError is a push Daraja refused or could not be asked for; the
// purchase has been marked failed (push_failed).
type PushError struct {
	PurchaseID string
	// Rejected is true when Daraja answered with an error (the request was
	// refused), false when it could not be reached or answered nothing
	// usable.
	Rejected bool
	// Message is Daraja's errorMessage, or a generic text.
	Message string
	Err     error
}

func (e *PushError) Error() string {
	return "stk push for purchase " + e.PurchaseID + ": " + e.Err.Error()
}
func (e *PushError) Unwrap() error { return e.Err }

// Service runs the flow. Its fields are set once by main.
type Service struct {
	Store  *store.Store
	Daraja *daraja.Client
	// CallbackURL is the public callback endpoint; the purchase id and
	// its secret are added as the query parameters p and s.
	CallbackURL string
	// AccountReference and Description go on the prompt.
	AccountReference, Description string
	Log                           *slog.Logger
}

// Started is an accepted STK push.
type Started struct {
	PurchaseID        string `json:"purchase_id"`
	CheckoutRequestID string `json:"checkout_request_id"`
	MerchantRequestID string `json:"merchant_request_id"`
	CustomerMessage   string `json:"customer_message"`
	Status            string `json:"status"`
	AmountKES         int64  `json:"amount_kes"`
	Coins             int64  `json:"coins"`
	Phone             string `json:"phone"`
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// Start creates the buyer's purchase of packageID and sends the STK push
// to phoneInput (normalised), or to the profile's number when it is "".
func (s *Service) Start(ctx context.Context, buyer store.Caller, packageID, phoneInput string) (Started, error) {
	if !uuidPattern.MatchString(packageID) {
		return Started{}, ErrInvalidRequest
	}
	msisdn := ""
	if phoneInput != "" {
		var err error
		if msisdn, err = phone.Normalize(phoneInput); err != nil {
			return Started{}, ErrInvalidPhone
		}
	}
	secret := make([]byte, secretBytes)
	_, _ = rand.Read(secret) // crypto/rand.Read never fails (Go 1.24+)
	hash := sha256.Sum256(secret)
	p, err := s.Store.CreatePurchase(ctx, buyer, packageID, msisdn, hash[:])
	if err != nil {
		return Started{}, err
	}
	// Whatever happens to the buyer's request from here on, the purchase
	// must end up recorded: the rest does not follow its cancellation.
	bg := context.WithoutCancel(ctx)
	res, err := s.Daraja.STKPush(ctx, daraja.Push{
		Phone: p.Phone, Amount: p.AmountKES, CallbackURL: s.callbackURL(p.ID, secret),
		AccountReference: s.AccountReference, Description: s.Description,
	})
	if err != nil {
		if unanswered(err) {
			// Daraja may have accepted the push and answered too late: the
			// prompt can still reach the phone and be paid. The purchase stays
			// pending, so its callback credits it (the callback names the
			// CheckoutRequestID we never heard) and the app keeps waiting;
			// without one, the sweep expires it. Failing it here would tell a
			// buyer who then pays that nothing was charged.
			s.Log.Warn("stk push unanswered; the purchase stays pending", "purchase_id", p.ID, "phone", phone.Mask(p.Phone), "error", err.Error())
			return Started{
				PurchaseID: p.ID, CustomerMessage: UnansweredMessage, Status: "pending",
				AmountKES: p.AmountKES, Coins: p.Coins, Phone: p.Phone,
			}, nil
		}
		perr := &PushError{PurchaseID: p.ID, Message: "M-Pesa could not be reached. Try again in a moment.", Err: err}
		var ae *daraja.APIError
		// A refused OAuth token is our configuration, not the buyer's
		// number: the push was never sent, so it is "unavailable".
		if errors.As(err, &ae) && !errors.Is(err, daraja.ErrAccessToken) {
			perr.Rejected = true
			if ae.Message != "" {
				perr.Message = ae.Message
			}
		}
		if _, rerr := s.Store.Resolve(bg, p.ID, nil, "STK push failed: "+perr.Message, "push_failed", store.ViaPush); rerr != nil {
			s.Log.Error("mark purchase failed after its push failed", "purchase_id", p.ID, "error", rerr.Error())
		}
		s.Log.Warn("stk push failed", "purchase_id", p.ID, "phone", phone.Mask(p.Phone), "error", err.Error())
		return Started{}, perr
	}
	if err := s.Store.RecordPush(bg, p.ID, res.CheckoutRequestID, res.MerchantRequestID); err != nil {
		// The callback (which carries the secret) or the sweep still
		// settles it; the buyer's prompt is on its way.
		s.Log.Error("record stk push", "purchase_id", p.ID, "checkout_request_id", res.CheckoutRequestID, "error", err.Error())
	}
	s.Log.Info("stk push sent", "purchase_id", p.ID, "checkout_request_id", res.CheckoutRequestID,
		"amount_kes", p.AmountKES, "phone", phone.Mask(p.Phone))
	return Started{
		PurchaseID: p.ID, CheckoutRequestID: res.CheckoutRequestID, MerchantRequestID: res.MerchantRequestID,
		CustomerMessage: res.CustomerMessage, Status: "pending", AmountKES: p.AmountKES, Coins: p.Coins, Phone: p.Phone,
	}, nil
}

// UnansweredMessage is the customer message of a push Daraja did not
// answer in time.
const UnansweredMessage = "M-Pesa did not confirm the request in time. If a prompt reaches your phone, you can still pay."

// unanswered reports whether err is a push sent to Daraja whose answer did
// not come in time, so that Daraja may have acted on it. A refused token,
// or a connection never made, sent nothing.
func unanswered(err error) bool {
	if errors.Is(err, daraja.ErrAccessToken) {
		return false
	}
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

func (s *Service) callbackURL(purchaseID string, secret []byte) string {
	q := url.Values{}
	q.Set("p", purchaseID)
	q.Set("s", base64.RawURLEncoding.EncodeToString(secret))
	return s.CallbackURL + "?" + q.Encode()
}

// FailureCode is the app's reason for a Daraja ResultCode ("" for 0).
func FailureCode(resultCode int) string {
	switch resultCode {
	case daraja.ResultSuccess:
		return ""
	case daraja.ResultInsufficientFunds:
		return "insufficient_funds"
	case daraja.ResultCancelled:
		return "cancelled"
	case daraja.ResultUnreachable, daraja.ResultExpired:
		return "timeout"
	case daraja.ResultWrongPIN:
		return "wrong_pin"
	case daraja.ResultSubscriberBusy:
		return "busy"
	}
	return "declined"
}

// ErrMalformed is a callback body that is not Safaricom's.
var ErrMalformed = daraja.ErrMalformedCallback

// Callback settles a purchase from Safaricom's callback: purchaseID and
// secret come from the CallBackURL's query, body is what was posted. It
// returns the store's outcome (store.Credited, Failed, Duplicate,
// Conflict), ErrMalformed, or store.ErrUnknownCallback for a forgery.
func (s *Service) Callback(ctx context.Context, purchaseID, secret string, body []byte) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(secret)
	if err != nil || len(raw) != secretBytes || !uuidPattern.MatchString(purchaseID) {
		return "", store.ErrUnknownCallback
	}
	r, err := daraja.ParseCallback(body)
	if err != nil {
		return "", err
	}
	hash := sha256.Sum256(raw)
	st := store.Settlement{
		PurchaseID: purchaseID, SecretHash: hash[:], CheckoutRequestID: r.CheckoutRequestID,
		MerchantRequestID: r.MerchantRequestID, ResultCode: r.ResultCode, ResultDesc: r.ResultDesc,
		FailureCode: FailureCode(r.ResultCode), Receipt: r.Receipt,
	}
	if r.AmountOK {
		st.Amount = &r.Amount
	}
	outcome, err := s.Store.SettleCallback(ctx, st)
	if err != nil {
		return "", err
	}
	switch outcome {
	case store.Conflict:
		s.Log.Error("callback contradicts a settled purchase; nothing changed", "purchase_id", purchaseID,
			"checkout_request_id", r.CheckoutRequestID, "result_code", r.ResultCode)
	case store.Duplicate:
		s.Log.Info("callback replayed; nothing changed", "purchase_id", purchaseID, "result_code", r.ResultCode)
	default:
		s.Log.Info("callback settled", "purchase_id", purchaseID, "outcome", outcome, "result_code", r.ResultCode)
	}
	return outcome, nil
}
