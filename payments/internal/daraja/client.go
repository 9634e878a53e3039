package daraja

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// maxResponseBytes bounds what is read of a Daraja answer.
const maxResponseBytes = 64 << 10

// tokenMargin is how long before its expiry a cached token is replaced, so
// a token never expires between the check and Daraja's.
const tokenMargin = time.Minute

// ErrProcessing is returned by Query while M-Pesa has no result yet
// (Daraja answers 500.001.1001 "The transaction is being processed").
var ErrProcessing = errors.New("daraja: the transaction is being processed")

// ErrAccessToken marks a call that failed before reaching its endpoint:
// Daraja refused or did not give the OAuth token (wrong or revoked consumer
// key or secret, OAuth down). The error wraps Daraja's answer as well; what
// it says is about our credentials, not about the call's subject.
var ErrAccessToken = errors.New("daraja: no access token")

// APIError is an error answer from Daraja.
type APIError struct {
	// Status is the HTTP status.
	Status int
	// Code and Message are Daraja's errorCode and errorMessage (or, for
	// a body that is not Daraja's shape, empty and the status text).
	Code, Message string
	// RequestID is Daraja's requestId, for Safaricom's support.
	RequestID string
}

func (e *APIError) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("daraja: HTTP %d: %s", e.Status, e.Message)
	}
	return fmt.Sprintf("daraja: HTTP %d %s: %s", e.Status, e.Code, e.Message)
}

// Config is what a Client needs.
type Config struct {
	// BaseURL is https://sandbox.safaricom.co.ke, https://api.safaricom.co.ke
	// or a simulator.
	BaseURL string
	// ConsumerKey and ConsumerSecret are the Daraja app's credentials.
	ConsumerKey, ConsumerSecret string
	// ShortCode is the paybill (BusinessShortCode); PartyB defaults to it
	// (a till takes its till number).
	ShortCode, PartyB string
	// PassKey is the Lipa Na M-Pesa Online passkey.
	PassKey string
	// TransactionType is PayBillOnline (default) or BuyGoodsOnline.
	TransactionType string
	// HTTP is the client used; nil is one with a 30 s timeout.
	HTTP *http.Client
	// Now is the clock (tests); nil is time.Now.
	Now func() time.Time
}

// Client calls Daraja. It is safe for concurrent use; the OAuth token is
// shared by every caller, fetched once at a time and reused until a minute
// before it expires.
type Client struct {
	cfg  Config
	base string
	http *http.Client
	now  func() time.Time

	mu      sync.Mutex
	token   string
	expires time.Time
	flight  singleflight.Group
}

// New checks cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("daraja: base URL %q is not an http(s) URL", cfg.BaseURL)
	}
	if cfg.PartyB == "" {
		cfg.PartyB = cfg.ShortCode
	}
	if cfg.TransactionType == "" {
		cfg.TransactionType = PayBillOnline
	}
	c := &Client{cfg: cfg, base: strings.TrimSuffix(cfg.BaseURL, "/"), http: cfg.HTTP, now: cfg.Now}
	if c.http == nil {
		c.http = &http.Client{Timeout: 30 * time.Second}
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c, nil
}

// Token returns a valid access token, fetching one when the cached token
// is missing or about to expire. Concurrent callers share one fetch; a
// caller whose ctx ends stops waiting without cancelling it for the others.
func (c *Client) Token(ctx context.Context) (string, error) {
	if t, ok := c.cached(); ok {
		return t, nil
	}
	ch := c.flight.DoChan("token", func() (any, error) {
		// A flight that ended between this caller's look at the cache and
		// its DoChan has already stored a token: fetching again would
		// spend a second one for nothing.
		if t, ok := c.cached(); ok {
			return t, nil
		}
		timeout := c.http.Timeout
		if timeout <= 0 {
			timeout = 30 * time.Second
		}
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		return c.fetchToken(fctx)
	})
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case r := <-ch:
		if r.Err != nil {
			return "", r.Err
		}
		return r.Val.(string), nil
	}
}

// cached returns the cached token if it has more than tokenMargin left.
func (c *Client) cached() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token != "" && c.now().Before(c.expires.Add(-tokenMargin)) {
		return c.token, true
	}
	return "", false
}

// invalidate forgets token if it is still the cached one (Daraja refused
// it before its announced expiry).
func (c *Client) invalidate(token string) {
	c.mu.Lock()
	if c.token == token {
		c.token, c.expires = "", time.Time{}
	}
	c.mu.Unlock()
}

func (c *Client) fetchToken(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+PathOAuth+"?grant_type=client_credentials", nil)
	if err != nil {
		return "", fmt.Errorf("daraja: token request: %w", err)
	}
	req.SetBasicAuth(c.cfg.ConsumerKey, c.cfg.ConsumerSecret)
	var tr TokenResponse
	if err := c.do(req, &tr); err != nil {
		return "", fmt.Errorf("%w: %w", ErrAccessToken, err)
	}
	secs, ok := tr.ExpiresIn.Int()
	if tr.AccessToken == "" || !ok || secs <= 0 {
		return "", fmt.Errorf("%w: no token or expiry in the answer", ErrAccessToken)
	}
	c.mu.Lock()
	c.token, c.expires = tr.AccessToken, c.now().Add(time.Duration(secs)*time.Second)
	c.mu.Unlock()
	return tr.AccessToken, nil
}

// Push is an STK push to start.
type Push struct {
	// Phone is the payer's 2547XXXXXXXX / 2541XXXXXXXX (PartyA and
	// PhoneNumber).
	Phone string
	// Amount is in whole shillings.
	Amount int64
	// CallbackURL receives the result.
	CallbackURL string
	// AccountReference (at most 12 characters) and Description (at most
	// 13) appear on the prompt and the statement.
	AccountReference, Description string
}

// STKPush asks M-Pesa to prompt the payer's phone. An accepted push
// returns its ids; Daraja's refusal is an *APIError.
func (c *Client) STKPush(ctx context.Context, p Push) (PushResponse, error) {
	ts := Timestamp(c.now())
	body := PushRequest{
		BusinessShortCode: c.cfg.ShortCode,
		Password:          Password(c.cfg.ShortCode, c.cfg.PassKey, ts),
		Timestamp:         ts,
		TransactionType:   c.cfg.TransactionType,
		Amount:            Int64(p.Amount),
		PartyA:            p.Phone,
		PartyB:            c.cfg.PartyB,
		PhoneNumber:       p.Phone,
		CallBackURL:       p.CallbackURL,
		AccountReference:  p.AccountReference,
		TransactionDesc:   p.Description,
	}
	var out PushResponse
	if err := c.call(ctx, PathPush, body, &out); err != nil {
		return PushResponse{}, fmt.Errorf("stk push: %w", err)
	}
	if out.ResponseCode != "0" || out.CheckoutRequestID == "" {
		return PushResponse{}, fmt.Errorf("stk push: %w", &APIError{Status: http.StatusOK, Code: out.ResponseCode, Message: out.ResponseDescription})
	}
	return out, nil
}

// STKQuery asks for the result of a push. It returns ErrProcessing while
// the payer has not answered yet.
func (c *Client) STKQuery(ctx context.Context, checkoutRequestID string) (QueryResponse, error) {
	ts := Timestamp(c.now())
	body := QueryRequest{
		BusinessShortCode: c.cfg.ShortCode,
		Password:          Password(c.cfg.ShortCode, c.cfg.PassKey, ts),
		Timestamp:         ts,
		CheckoutRequestID: checkoutRequestID,
	}
	var out QueryResponse
	err := c.call(ctx, PathQuery, body, &out)
	var ae *APIError
	if errors.As(err, &ae) && ae.Code == CodeInternalError && strings.Contains(strings.ToLower(ae.Message), "being processed") {
		return QueryResponse{}, ErrProcessing
	}
	if err != nil {
		return QueryResponse{}, fmt.Errorf("stk query: %w", err)
	}
	if _, ok := out.ResultCode.Int(); !ok {
		return QueryResponse{}, fmt.Errorf("stk query: %w", &APIError{Status: http.StatusOK, Code: out.ResponseCode, Message: "no ResultCode: " + out.ResponseDescription})
	}
	return out, nil
}

// call POSTs body with the bearer token. A token Daraja no longer accepts
// is dropped and the call made once more with a fresh one.
func (c *Client) call(ctx context.Context, path string, body, out any) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	for attempt := 0; ; attempt++ {
		token, err := c.Token(ctx)
		if err != nil {
			return err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(payload))
		if err != nil {
			return fmt.Errorf("build request: %w", err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		err = c.do(req, out)
		var ae *APIError
		if attempt == 0 && errors.As(err, &ae) && ae.Code == CodeInvalidToken {
			c.invalidate(token)
			continue
		}
		return err
	}
}

// do sends req and decodes a 200 answer into out, or returns the error
// answer as *APIError.
func (c *Client) do(req *http.Request, out any) error {
	res, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes))
	if err != nil {
		return fmt.Errorf("read answer: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		ae := &APIError{Status: res.StatusCode}
		var eb ErrorBody
		if json.Unmarshal(raw, &eb) == nil && (eb.ErrorCode != "" || eb.ErrorMessage != "") {
			ae.Code, ae.Message, ae.RequestID = eb.ErrorCode, eb.ErrorMessage, eb.RequestID
		} else {
			ae.Message = http.StatusText(res.StatusCode)
		}
		return ae
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("decode answer: %w", err)
	}
	return nil
}
