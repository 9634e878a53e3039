// Package daraja is a client of Safaricom's Daraja API for M-Pesa Express
// (Lipa Na M-Pesa Online): the OAuth client-credentials token, the STK push
// and the STK query, plus the parser of the STK callback Safaricom posts
// back. The wire types here are shared with the simulator (darajasim), so
// both speak exactly the same JSON.
package daraja

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Paths of the Daraja API, below its base URL.
const (
	PathOAuth = "/oauth/v1/generate"
	PathPush  = "/mpesa/stkpush/v1/processrequest"
	PathQuery = "/mpesa/stkpushquery/v1/query"
)

// Transaction types of an STK push: a paybill (PartyB is the shortcode) or
// a till (PartyB is the till number).
const (
	PayBillOnline  = "CustomerPayBillOnline"
	BuyGoodsOnline = "CustomerBuyGoodsOnline"
)

// Base URLs of the two Daraja environments.
const (
	SandboxURL    = "https://sandbox.safaricom.co.ke"
	ProductionURL = "https://api.safaricom.co.ke"
)

// Error codes Daraja answers with (errorCode in an error body).
const (
	CodeInvalidAuth   = "400.008.01" // OAuth: wrong consumer key or secret
	CodeInvalidGrant  = "400.008.02" // OAuth: grant_type is not client_credentials
	CodeBadRequest    = "400.002.02" // a field is missing or malformed ("Bad Request - Invalid PhoneNumber")
	CodeInvalidToken  = "404.001.03" // the bearer token is unknown or expired
	CodeInternalError = "500.001.1001"
)

// Result codes of an STK transaction (ResultCode in a callback or query).
const (
	ResultSuccess           = 0
	ResultInsufficientFunds = 1
	ResultSubscriberBusy    = 1001 // "Unable to lock subscriber, a transaction is already in process"
	ResultExpired           = 1019 // "Transaction has expired"
	ResultCancelled         = 1032 // "Request cancelled by user"
	ResultUnreachable       = 1037 // "DS timeout user cannot be reached"
	ResultWrongPIN          = 2001 // "The initiator information is invalid."
)

// eat is East Africa Time. Kenya has kept UTC+3 without daylight saving
// since 1942, so a fixed zone is exact and needs no tzdata in the image.
var eat = time.FixedZone("EAT", 3*60*60)

// TimestampLayout is Daraja's yyyyMMddHHmmss.
const TimestampLayout = "20060102150405"

// Timestamp is t in Nairobi time as Daraja wants it: yyyyMMddHHmmss.
func Timestamp(t time.Time) string { return t.In(eat).Format(TimestampLayout) }

// ParseTimestamp reads a Daraja timestamp as Nairobi time.
func ParseTimestamp(s string) (time.Time, error) {
	return time.ParseInLocation(TimestampLayout, s, eat)
}

// Password is the STK password: base64(shortcode + passkey + timestamp).
func Password(shortcode, passkey, timestamp string) string {
	return base64.StdEncoding.EncodeToString([]byte(shortcode + passkey + timestamp))
}

// TokenResponse is the OAuth answer. Daraja sends expires_in as a string
// ("3599"); Seconds reads either form.
type TokenResponse struct {
	AccessToken string `json:"access_token"`
	ExpiresIn   Number `json:"expires_in"`
}

// PushRequest is the body of an STK push.
type PushRequest struct {
	BusinessShortCode string `json:"BusinessShortCode"`
	Password          string `json:"Password"`
	Timestamp         string `json:"Timestamp"`
	TransactionType   string `json:"TransactionType"`
	Amount            Number `json:"Amount"`
	PartyA            string `json:"PartyA"`
	PartyB            string `json:"PartyB"`
	PhoneNumber       string `json:"PhoneNumber"`
	CallBackURL       string `json:"CallBackURL"`
	AccountReference  string `json:"AccountReference"`
	TransactionDesc   string `json:"TransactionDesc"`
}

// PushResponse is Daraja's answer to an accepted STK push.
type PushResponse struct {
	MerchantRequestID   string `json:"MerchantRequestID"`
	CheckoutRequestID   string `json:"CheckoutRequestID"`
	ResponseCode        string `json:"ResponseCode"`
	ResponseDescription string `json:"ResponseDescription"`
	CustomerMessage     string `json:"CustomerMessage"`
}

// QueryRequest is the body of an STK query.
type QueryRequest struct {
	BusinessShortCode string `json:"BusinessShortCode"`
	Password          string `json:"Password"`
	Timestamp         string `json:"Timestamp"`
	CheckoutRequestID string `json:"CheckoutRequestID"`
}

// QueryResponse is Daraja's answer to an STK query of a finished
// transaction. ResultCode is a string on this API and a number in
// callbacks; Number reads both.
type QueryResponse struct {
	ResponseCode        string `json:"ResponseCode"`
	ResponseDescription string `json:"ResponseDescription"`
	MerchantRequestID   string `json:"MerchantRequestID"`
	CheckoutRequestID   string `json:"CheckoutRequestID"`
	ResultCode          Number `json:"ResultCode"`
	ResultDesc          string `json:"ResultDesc"`
}

// ErrorBody is Daraja's error answer.
type ErrorBody struct {
	RequestID    string `json:"requestId"`
	ErrorCode    string `json:"errorCode"`
	ErrorMessage string `json:"errorMessage"`
}

// Number is a JSON value Daraja sends as a number or as a string of one,
// kept as its text ("0", "1032", "500.00"). It marshals as a number.
type Number string

// UnmarshalJSON accepts 12, 12.5, "12" and null.
func (n *Number) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "null" {
		*n = ""
		return nil
	}
	if strings.HasPrefix(s, `"`) {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		s = strings.TrimSpace(str)
	}
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		return fmt.Errorf("daraja: %q is not a number", s)
	}
	*n = Number(s)
	return nil
}

// MarshalJSON writes the number bare, as Daraja's documentation shows it.
func (n Number) MarshalJSON() ([]byte, error) {
	if n == "" {
		return []byte("null"), nil
	}
	if _, err := strconv.ParseFloat(string(n), 64); err != nil {
		return nil, fmt.Errorf("daraja: %q is not a number", string(n))
	}
	return []byte(n), nil
}

// Int returns n as a whole number; ok is false for an empty, fractional or
// out-of-range value ("500.00" is 500, "500.5" is not whole).
func (n Number) Int() (int64, bool) {
	s := string(n)
	if s == "" {
		return 0, false
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, true
	}
	whole, frac, found := strings.Cut(s, ".")
	if !found || strings.Trim(frac, "0") != "" || strings.ContainsAny(frac, "eE+-") {
		return 0, false
	}
	i, err := strconv.ParseInt(whole, 10, 64)
	return i, err == nil
}

// Int64 is the Number of a whole amount.
func Int64(i int64) Number { return Number(strconv.FormatInt(i, 10)) }
