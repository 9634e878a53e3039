package daraja

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// MaxCallbackBytes bounds a callback body; Safaricom's are under 1 KiB.
const MaxCallbackBytes = 16 << 10

// ErrMalformedCallback is wrapped by every ParseCallback failure.
var ErrMalformedCallback = errors.New("malformed STK callback")

// Callback is the body Safaricom posts to an STK push's CallBackURL:
//
//	{"Body":{"stkCallback":{"MerchantRequestID":"29115-34620561-1",
//	  "CheckoutRequestID":"ws_CO_191220191020363925","ResultCode":0,
//	  "ResultDesc":"The service request is processed successfully.",
//	  "CallbackMetadata":{"Item":[{"Name":"Amount","Value":1.00},
//	    {"Name":"MpesaReceiptNumber","Value":"NLJ7RT61SV"},
//	    {"Name":"TransactionDate","Value":20191219102115},
//	    {"Name":"PhoneNumber","Value":254708374149}]}}}}
//
// A failed transaction has no CallbackMetadata.
type Callback struct {
	Body struct {
		STKCallback STKCallback `json:"stkCallback"`
	} `json:"Body"`
}

// STKCallback is the callback's payload.
type STKCallback struct {
	MerchantRequestID string    `json:"MerchantRequestID"`
	CheckoutRequestID string    `json:"CheckoutRequestID"`
	ResultCode        Number    `json:"ResultCode"`
	ResultDesc        string    `json:"ResultDesc"`
	CallbackMetadata  *Metadata `json:"CallbackMetadata,omitempty"`
}

// Metadata lists a successful payment's details as name/value items.
type Metadata struct {
	Item []MetadataItem `json:"Item"`
}

// MetadataItem is one detail; Value is a number or a string, and absent
// for some names (Balance).
type MetadataItem struct {
	Name  string          `json:"Name"`
	Value json.RawMessage `json:"Value,omitempty"`
}

// Result is a parsed callback: what the settlement needs, typed.
type Result struct {
	MerchantRequestID string
	CheckoutRequestID string
	ResultCode        int
	ResultDesc        string
	// For ResultCode 0 only:
	Receipt string // MpesaReceiptNumber
	// Amount is the paid amount in whole shillings; AmountOK is false when
	// it is missing or not whole.
	Amount   int64
	AmountOK bool
	Phone    string // PhoneNumber as sent (digits), for logs only
}

// ParseCallback reads a callback body. It refuses what Safaricom never
// sends: not JSON, several values, no CheckoutRequestID, a ResultCode that
// is not a whole number, or a success without a receipt.
func ParseCallback(body []byte) (Result, error) {
	if len(body) > MaxCallbackBytes {
		return Result{}, fmt.Errorf("%w: %d bytes", ErrMalformedCallback, len(body))
	}
	var cb Callback
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&cb); err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrMalformedCallback, err)
	}
	if dec.More() {
		return Result{}, fmt.Errorf("%w: trailing data", ErrMalformedCallback)
	}
	s := cb.Body.STKCallback
	r := Result{
		MerchantRequestID: strings.TrimSpace(s.MerchantRequestID),
		CheckoutRequestID: strings.TrimSpace(s.CheckoutRequestID),
		ResultDesc:        strings.TrimSpace(s.ResultDesc),
	}
	if r.CheckoutRequestID == "" {
		return Result{}, fmt.Errorf("%w: no CheckoutRequestID", ErrMalformedCallback)
	}
	code, ok := s.ResultCode.Int()
	if !ok || code < -1<<31 || code > 1<<31-1 {
		return Result{}, fmt.Errorf("%w: ResultCode %q", ErrMalformedCallback, string(s.ResultCode))
	}
	r.ResultCode = int(code)
	if r.ResultCode != ResultSuccess {
		return r, nil
	}
	if s.CallbackMetadata != nil {
		for _, it := range s.CallbackMetadata.Item {
			switch it.Name {
			case "MpesaReceiptNumber":
				r.Receipt = metadataString(it.Value)
			case "Amount":
				var n Number
				if json.Unmarshal(it.Value, &n) == nil {
					r.Amount, r.AmountOK = n.Int()
				}
			case "PhoneNumber":
				r.Phone = metadataString(it.Value)
			}
		}
	}
	if !validReceipt(r.Receipt) {
		return Result{}, fmt.Errorf("%w: a paid callback without a usable MpesaReceiptNumber", ErrMalformedCallback)
	}
	return r, nil
}

// metadataString reads a string or number item value as text.
func metadataString(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return strings.TrimSpace(s)
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	if dec.Decode(&n) == nil {
		return n.String()
	}
	return ""
}

// validReceipt accepts what an M-Pesa receipt looks like (ten letters and
// digits, NLJ7RT61SV), with room to spare, and nothing that could bloat or
// garble a log line or the unique payment_reference.
func validReceipt(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}
