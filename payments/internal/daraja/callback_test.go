package daraja

import (
	"errors"
	"strings"
	"testing"
)

// Safaricom's documented success and cancellation callbacks.
const (
	paidCallback = `{"Body":{"stkCallback":{"MerchantRequestID":"29115-34620561-1","CheckoutRequestID":"ws_CO_191220191020363925",
	"ResultCode":0,"ResultDesc":"The service request is processed successfully.","CallbackMetadata":{"Item":[
	{"Name":"Amount","Value":1.00},{"Name":"MpesaReceiptNumber","Value":"NLJ7RT61SV"},{"Name":"Balance"},
	{"Name":"TransactionDate","Value":20191219102115},{"Name":"PhoneNumber","Value":254708374149}]}}}}`
	cancelledCallback = `{"Body":{"stkCallback":{"MerchantRequestID":"29115-34620561-1","CheckoutRequestID":"ws_CO_191220191020363925",
	"ResultCode":1032,"ResultDesc":"Request cancelled by user"}}}`
)

func TestParseCallback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		body    string
		want    Result
		wantErr bool
	}{
		{name: "paid", body: paidCallback, want: Result{MerchantRequestID: "29115-34620561-1", CheckoutRequestID: "ws_CO_191220191020363925",
			ResultCode: 0, ResultDesc: "The service request is processed successfully.", Receipt: "NLJ7RT61SV", Amount: 1, AmountOK: true, Phone: "254708374149"}},
		{name: "cancelled", body: cancelledCallback, want: Result{MerchantRequestID: "29115-34620561-1", CheckoutRequestID: "ws_CO_191220191020363925",
			ResultCode: 1032, ResultDesc: "Request cancelled by user"}},
		{name: "codes as strings", body: `{"Body":{"stkCallback":{"CheckoutRequestID":"ws_CO_1","ResultCode":"1037","ResultDesc":"DS timeout user cannot be reached"}}}`,
			want: Result{CheckoutRequestID: "ws_CO_1", ResultCode: 1037, ResultDesc: "DS timeout user cannot be reached"}},
		{name: "amount as string, not whole", body: `{"Body":{"stkCallback":{"CheckoutRequestID":"ws_CO_1","ResultCode":0,"CallbackMetadata":{"Item":[
			{"Name":"Amount","Value":"499.50"},{"Name":"MpesaReceiptNumber","Value":"TK1234ABCD"}]}}}}`,
			want: Result{CheckoutRequestID: "ws_CO_1", Receipt: "TK1234ABCD"}},
		{name: "unknown fields ignored", body: `{"Body":{"stkCallback":{"CheckoutRequestID":"ws_CO_1","ResultCode":1,"ResultDesc":"x","Extra":[1,2]}},"Other":true}`,
			want: Result{CheckoutRequestID: "ws_CO_1", ResultCode: 1, ResultDesc: "x"}},
		{name: "not JSON", body: `ResultCode=0`, wantErr: true},
		{name: "two values", body: cancelledCallback + cancelledCallback, wantErr: true},
		{name: "no checkout id", body: `{"Body":{"stkCallback":{"ResultCode":0}}}`, wantErr: true},
		{name: "no result code", body: `{"Body":{"stkCallback":{"CheckoutRequestID":"ws_CO_1"}}}`, wantErr: true},
		{name: "fractional result code", body: `{"Body":{"stkCallback":{"CheckoutRequestID":"ws_CO_1","ResultCode":0.5}}}`, wantErr: true},
		{name: "huge result code", body: `{"Body":{"stkCallback":{"CheckoutRequestID":"ws_CO_1","ResultCode":4294967296}}}`, wantErr: true},
		{name: "paid without receipt", body: `{"Body":{"stkCallback":{"CheckoutRequestID":"ws_CO_1","ResultCode":0}}}`, wantErr: true},
		{name: "paid with a junk receipt", body: `{"Body":{"stkCallback":{"CheckoutRequestID":"ws_CO_1","ResultCode":0,"CallbackMetadata":{"Item":[
			{"Name":"MpesaReceiptNumber","Value":"NLJ7 RT61SV\n"}]}}}}`, wantErr: true},
		{name: "empty", body: ``, wantErr: true},
		{name: "too large", body: `{"Body":{"stkCallback":{"CheckoutRequestID":"ws_CO_1","ResultCode":1,"ResultDesc":"` + strings.Repeat("x", MaxCallbackBytes) + `"}}}`, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseCallback([]byte(tc.body))
			if tc.wantErr {
				if !errors.Is(err, ErrMalformedCallback) {
					t.Fatalf("got %+v, %v; want ErrMalformedCallback", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// The parser never panics, and what it accepts is usable: a checkout id,
// and for a payment a clean receipt.
func FuzzParseCallback(f *testing.F) {
	f.Add([]byte(paidCallback))
	f.Add([]byte(cancelledCallback))
	f.Add([]byte(`{"Body":{"stkCallback":{"CheckoutRequestID":"ws_CO_1","ResultCode":"0","CallbackMetadata":{"Item":[{"Name":"MpesaReceiptNumber","Value":12345}]}}}}`))
	f.Add([]byte(`{"Body":null}`))
	f.Add([]byte(`[]`))
	// More seeds, in the go test corpus format: testdata/fuzz/FuzzParseCallback.
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := ParseCallback(body)
		if err != nil {
			if !errors.Is(err, ErrMalformedCallback) {
				t.Fatalf("error %v does not wrap ErrMalformedCallback", err)
			}
			return
		}
		if r.CheckoutRequestID == "" {
			t.Fatal("accepted a callback without CheckoutRequestID")
		}
		if r.ResultCode == ResultSuccess && !validReceipt(r.Receipt) {
			t.Fatalf("accepted a payment with receipt %q", r.Receipt)
		}
		if r.ResultCode != ResultSuccess && (r.Receipt != "" || r.AmountOK) {
			t.Fatalf("a failure carries payment details: %+v", r)
		}
	})
}
