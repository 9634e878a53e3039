// Package darajasim is a stand-in for Safaricom's Daraja sandbox, for
// development (`make run`) and tests: the same OAuth, STK push and STK
// query endpoints with the same JSON and the same error shapes, then the
// STK callback to the push's CallBackURL after a short delay. What the
// "payer" does is chosen by the phone number (Outcomes); every other
// number pays.
//
// It checks what Daraja checks and a client can get wrong: the Basic
// credentials and grant type of the token request, the bearer token, the
// BusinessShortCode, the Password against its passkey and the request's
// Timestamp, and the fields of the push.
package darajasim

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kejanest/kejanest/payments/internal/daraja"
)

// Development credentials: the simulator's defaults and the payments
// service's development defaults, so `make run` needs no configuration.
// They open nothing but the simulator.
const (
	DevConsumerKey    = "kejanest-sim-consumer-key"
	DevConsumerSecret = "kejanest-sim-consumer-secret"
	// SandboxShortCode and SandboxPassKey are Daraja's public sandbox
	// values (its documentation prints them).
	SandboxShortCode = "174379"
	SandboxPassKey   = "bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919"
)

// Defaults of Config.
const (
	DefaultCallbackDelay = 3 * time.Second
	DefaultTokenTTL      = 3599 * time.Second
	// keepFor is how long a transaction stays queryable.
	keepFor = 24 * time.Hour
	// maxTransactions bounds the simulator's memory.
	maxTransactions = 10000
)

// Outcome is what the simulated payer does.
type Outcome struct {
	// Phone is the test number (2547…), "" for the default.
	Phone string `json:"phone"`
	// Name says it in words.
	Name string `json:"name"`
	// ResultCode and ResultDesc are what the callback and the query report.
	ResultCode int    `json:"result_code"`
	ResultDesc string `json:"result_desc"`
	// Callback is false when the callback is lost: only STK query tells.
	Callback bool `json:"callback"`
	// Never leaves the prompt unanswered for good: no callback, and the
	// query answers "being processed" forever.
	Never bool `json:"never,omitempty"`
}

// SuccessDesc is the ResultDesc of a payment.
const SuccessDesc = "The service request is processed successfully."

// Outcomes are the test numbers, documented in the README.
// 254708374149 is Daraja's own sandbox test number.
var Outcomes = []Outcome{
	{Phone: "254708374149", Name: "pays", ResultCode: daraja.ResultSuccess, ResultDesc: SuccessDesc, Callback: true},
	{Phone: "254700000001", Name: "cancels the prompt", ResultCode: daraja.ResultCancelled, ResultDesc: "Request cancelled by user", Callback: true},
	{Phone: "254700000002", Name: "cannot be reached (prompt times out)", ResultCode: daraja.ResultUnreachable, ResultDesc: "DS timeout user cannot be reached", Callback: true},
	{Phone: "254700000003", Name: "has too little on M-Pesa", ResultCode: daraja.ResultInsufficientFunds, ResultDesc: "The balance is insufficient for the transaction", Callback: true},
	{Phone: "254700000004", Name: "enters a wrong PIN", ResultCode: daraja.ResultWrongPIN, ResultDesc: "The initiator information is invalid.", Callback: true},
	{Phone: "254700000005", Name: "pays, but the callback is lost (only STK query tells)", ResultCode: daraja.ResultSuccess, ResultDesc: SuccessDesc, Callback: false},
	{Phone: "254700000006", Name: "cancels, and the callback is lost", ResultCode: daraja.ResultCancelled, ResultDesc: "Request cancelled by user", Callback: false},
	{Phone: "254700000009", Name: "never answers (no callback; the query says processing forever)", Never: true},
}

// defaultOutcome is every other number: it pays.
var defaultOutcome = Outcome{Name: "pays", ResultCode: daraja.ResultSuccess, ResultDesc: SuccessDesc, Callback: true}

// OutcomeFor is what the payer with phone does.
func OutcomeFor(phone string) Outcome {
	for _, o := range Outcomes {
		if o.Phone == phone {
			return o
		}
	}
	o := defaultOutcome
	o.Phone = phone
	return o
}

// Config is the simulator's configuration; zero fields take the defaults.
type Config struct {
	ConsumerKey, ConsumerSecret string // DevConsumerKey, DevConsumerSecret
	ShortCode, PassKey          string // SandboxShortCode, SandboxPassKey
	// CallbackDelay is how long the "payer" takes before the result is
	// decided and the callback sent.
	CallbackDelay time.Duration
	// TokenTTL is the life of an access token.
	TokenTTL time.Duration
	// HTTP posts the callbacks; nil is a client with a 10 s timeout.
	HTTP *http.Client
	// Log receives one line per callback; nil discards.
	Log *slog.Logger
}

// Transaction is one STK push as the simulator holds it.
type Transaction struct {
	CheckoutRequestID string    `json:"checkout_request_id"`
	MerchantRequestID string    `json:"merchant_request_id"`
	Phone             string    `json:"phone"`
	Amount            int64     `json:"amount"`
	CallbackURL       string    `json:"-"`
	Outcome           Outcome   `json:"outcome"`
	Receipt           string    `json:"receipt,omitempty"`
	Created           time.Time `json:"created_at"`
	// Decided is set once the payer has answered.
	Decided bool `json:"decided"`
	// CallbackStatus is the HTTP status the callback got (0: none sent).
	CallbackStatus int    `json:"callback_status,omitempty"`
	CallbackError  string `json:"callback_error,omitempty"`
}

// Server is the simulator; it is an http.Handler.
type Server struct {
	cfg Config
	log *slog.Logger
	mux *http.ServeMux

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	tokens map[string]time.Time
	txs    map[string]*Transaction
	order  []string // checkout ids, oldest first
	seq    int
}

// New returns a simulator; Close stops its pending callbacks.
func New(cfg Config) *Server {
	if cfg.ConsumerKey == "" {
		cfg.ConsumerKey = DevConsumerKey
	}
	if cfg.ConsumerSecret == "" {
		cfg.ConsumerSecret = DevConsumerSecret
	}
	if cfg.ShortCode == "" {
		cfg.ShortCode = SandboxShortCode
	}
	if cfg.PassKey == "" {
		cfg.PassKey = SandboxPassKey
	}
	if cfg.CallbackDelay <= 0 {
		cfg.CallbackDelay = DefaultCallbackDelay
	}
	if cfg.TokenTTL <= 0 {
		cfg.TokenTTL = DefaultTokenTTL
	}
	if cfg.HTTP == nil {
		cfg.HTTP = &http.Client{Timeout: 10 * time.Second}
	}
	s := &Server{cfg: cfg, log: cfg.Log, tokens: map[string]time.Time{}, txs: map[string]*Transaction{}}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET "+daraja.PathOAuth, s.oauth)
	s.mux.HandleFunc("POST "+daraja.PathPush, s.push)
	s.mux.HandleFunc("POST "+daraja.PathQuery, s.query)
	s.mux.HandleFunc("GET /simulator/transactions", s.list)
	s.mux.HandleFunc("GET /simulator/outcomes", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, Outcomes) })
	s.mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Close cancels the callbacks not yet sent and waits for those in flight.
func (s *Server) Close() {
	s.cancel()
	s.wg.Wait()
}

// Transaction returns a copy of the transaction with checkoutID.
func (s *Server) Transaction(checkoutID string) (Transaction, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tx, ok := s.txs[checkoutID]
	if !ok {
		return Transaction{}, false
	}
	return *tx, true
}

// Transactions returns copies of every transaction, oldest first.
func (s *Server) Transactions() []Transaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Transaction, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, *s.txs[id])
	}
	return out
}

func (s *Server) list(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.Transactions())
}

// Daraja's error answers.
func darajaError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, daraja.ErrorBody{RequestID: randomDigits(5) + "-" + randomDigits(8) + "-1", ErrorCode: code, ErrorMessage: message})
}

func badRequest(w http.ResponseWriter, field string) {
	darajaError(w, http.StatusBadRequest, daraja.CodeBadRequest, "Bad Request - Invalid "+field)
}

func (s *Server) oauth(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("grant_type") != "client_credentials" {
		darajaError(w, http.StatusBadRequest, daraja.CodeInvalidGrant, "Invalid grant type passed")
		return
	}
	key, secret, ok := r.BasicAuth()
	if !ok || !equal(key, s.cfg.ConsumerKey) || !equal(secret, s.cfg.ConsumerSecret) {
		darajaError(w, http.StatusBadRequest, daraja.CodeInvalidAuth, "Invalid Authentication passed")
		return
	}
	token := randomToken()
	s.mu.Lock()
	now := time.Now()
	for t, exp := range s.tokens {
		if now.After(exp) {
			delete(s.tokens, t)
		}
	}
	s.tokens[token] = now.Add(s.cfg.TokenTTL)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]string{
		"access_token": token,
		"expires_in":   strconv.Itoa(int(s.cfg.TokenTTL / time.Second)),
	})
}

// authorized checks the bearer token, answering Daraja's error if it fails.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	exp, known := s.tokens[strings.TrimSpace(token)]
	s.mu.Unlock()
	if !ok || !known || time.Now().After(exp) {
		darajaError(w, http.StatusNotFound, daraja.CodeInvalidToken, "Invalid Access Token")
		return false
	}
	return true
}

// credentials checks the shortcode and the password derived from the
// passkey and the request's timestamp.
func (s *Server) credentials(w http.ResponseWriter, shortCode, password, timestamp string) bool {
	if shortCode != s.cfg.ShortCode {
		badRequest(w, "BusinessShortCode")
		return false
	}
	if _, err := daraja.ParseTimestamp(timestamp); err != nil {
		badRequest(w, "Timestamp")
		return false
	}
	if !equal(password, daraja.Password(s.cfg.ShortCode, s.cfg.PassKey, timestamp)) {
		darajaError(w, http.StatusInternalServerError, daraja.CodeInternalError, "Wrong credentials")
		return false
	}
	return true
}

var msisdn = regexp.MustCompile(`^254[17][0-9]{8}$`)

func (s *Server) push(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	var req daraja.PushRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&req); err != nil {
		darajaError(w, http.StatusBadRequest, daraja.CodeBadRequest, "Bad Request - Invalid JSON")
		return
	}
	if !s.credentials(w, req.BusinessShortCode, req.Password, req.Timestamp) {
		return
	}
	amount, whole := req.Amount.Int()
	cb, cbErr := url.Parse(req.CallBackURL)
	switch {
	case req.TransactionType != daraja.PayBillOnline && req.TransactionType != daraja.BuyGoodsOnline:
		badRequest(w, "TransactionType")
	case !whole || amount < 1 || amount > 250000:
		badRequest(w, "Amount")
	case !msisdn.MatchString(req.PartyA):
		badRequest(w, "PartyA")
	case req.PartyB == "":
		badRequest(w, "PartyB")
	case !msisdn.MatchString(req.PhoneNumber):
		badRequest(w, "PhoneNumber")
	case cbErr != nil || (cb.Scheme != "http" && cb.Scheme != "https") || cb.Host == "":
		badRequest(w, "CallBackURL")
	case req.AccountReference == "" || len(req.AccountReference) > 12:
		badRequest(w, "AccountReference")
	case req.TransactionDesc == "" || len(req.TransactionDesc) > 13:
		badRequest(w, "TransactionDesc")
	default:
		tx := s.start(req.PhoneNumber, amount, req.CallBackURL)
		msg := "Success. Request accepted for processing"
		writeJSON(w, http.StatusOK, daraja.PushResponse{
			MerchantRequestID: tx.MerchantRequestID, CheckoutRequestID: tx.CheckoutRequestID,
			ResponseCode: "0", ResponseDescription: msg, CustomerMessage: msg,
		})
	}
}

// start records a push and schedules the payer's answer.
func (s *Server) start(phone string, amount int64, callbackURL string) Transaction {
	now := time.Now()
	s.mu.Lock()
	s.seq++
	tx := &Transaction{
		CheckoutRequestID: "ws_CO_" + now.In(time.FixedZone("EAT", 3*3600)).Format("02012006150405") + randomDigits(9),
		MerchantRequestID: fmt.Sprintf("%s-%d-1", randomDigits(5), 34620561+s.seq),
		Phone:             phone, Amount: amount, CallbackURL: callbackURL,
		Outcome: OutcomeFor(phone), Created: now,
	}
	if tx.Outcome.ResultCode == daraja.ResultSuccess && !tx.Outcome.Never {
		tx.Receipt = randomReceipt()
	}
	s.txs[tx.CheckoutRequestID] = tx
	s.order = append(s.order, tx.CheckoutRequestID)
	for len(s.order) > 0 && (len(s.order) > maxTransactions || now.Sub(s.txs[s.order[0]].Created) > keepFor) {
		delete(s.txs, s.order[0])
		s.order = s.order[1:]
	}
	copied := *tx
	s.mu.Unlock()

	if tx.Outcome.Never {
		return copied
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTimer(s.cfg.CallbackDelay)
		defer t.Stop()
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		tx.Decided = true
		snapshot := *tx
		s.mu.Unlock()
		if snapshot.Outcome.Callback {
			s.sendCallback(snapshot)
		}
	}()
	return copied
}

// CallbackBody is the JSON Safaricom posts for tx.
func CallbackBody(tx Transaction) []byte {
	var cb daraja.Callback
	st := &cb.Body.STKCallback
	st.MerchantRequestID = tx.MerchantRequestID
	st.CheckoutRequestID = tx.CheckoutRequestID
	st.ResultCode = daraja.Number(strconv.Itoa(tx.Outcome.ResultCode))
	st.ResultDesc = tx.Outcome.ResultDesc
	if tx.Outcome.ResultCode == daraja.ResultSuccess {
		st.CallbackMetadata = &daraja.Metadata{Item: []daraja.MetadataItem{
			{Name: "Amount", Value: json.RawMessage(strconv.FormatInt(tx.Amount, 10) + ".00")},
			{Name: "MpesaReceiptNumber", Value: json.RawMessage(strconv.Quote(tx.Receipt))},
			{Name: "TransactionDate", Value: json.RawMessage(tx.Created.In(time.FixedZone("EAT", 3*3600)).Format(daraja.TimestampLayout))},
			{Name: "PhoneNumber", Value: json.RawMessage(tx.Phone)},
		}}
	}
	b, _ := json.Marshal(cb)
	return b
}

func (s *Server) sendCallback(tx Transaction) {
	ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	defer cancel()
	status, errText := 0, ""
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, tx.CallbackURL, bytes.NewReader(CallbackBody(tx)))
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
		var res *http.Response
		if res, err = s.cfg.HTTP.Do(req); err == nil {
			status = res.StatusCode
			_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
			res.Body.Close()
		}
	}
	if err != nil {
		errText = err.Error()
	}
	s.mu.Lock()
	if live, ok := s.txs[tx.CheckoutRequestID]; ok {
		live.CallbackStatus, live.CallbackError = status, errText
	}
	s.mu.Unlock()
	s.log.Info("callback sent", "checkout_request_id", tx.CheckoutRequestID, "result_code", tx.Outcome.ResultCode,
		"status", status, "error", errText)
}

func (s *Server) query(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	var req daraja.QueryRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&req); err != nil {
		darajaError(w, http.StatusBadRequest, daraja.CodeBadRequest, "Bad Request - Invalid JSON")
		return
	}
	if !s.credentials(w, req.BusinessShortCode, req.Password, req.Timestamp) {
		return
	}
	s.mu.Lock()
	tx, ok := s.txs[req.CheckoutRequestID]
	var snapshot Transaction
	if ok {
		snapshot = *tx
	}
	s.mu.Unlock()
	switch {
	case !ok:
		badRequest(w, "CheckoutRequestID")
	case !snapshot.Decided:
		darajaError(w, http.StatusInternalServerError, daraja.CodeInternalError, "The transaction is being processed")
	default:
		writeJSON(w, http.StatusOK, daraja.QueryResponse{
			ResponseCode: "0", ResponseDescription: "The service request has been accepted successsfully",
			MerchantRequestID: snapshot.MerchantRequestID, CheckoutRequestID: snapshot.CheckoutRequestID,
			ResultCode: daraja.Number(strconv.Itoa(snapshot.Outcome.ResultCode)), ResultDesc: snapshot.Outcome.ResultDesc,
		})
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

func randomToken() string {
	b := make([]byte, 21)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func randomDigits(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = '0' + b[i]%10
	}
	return string(b)
}

// randomReceipt looks like an M-Pesa receipt: ten capitals and digits.
func randomReceipt() string {
	const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
	b := make([]byte, 10)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	b[0] = 'T' // receipts start with a letter for the year
	return string(b)
}
