package sms

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func TestProviders(t *testing.T) {
	t.Parallel()
	var got *http.Request
	var form url.Values
	status := http.StatusCreated
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		form, _ = url.ParseQuery(string(b))
		got = r
		w.WriteHeader(status)
	}))
	defer srv.Close()
	ctx := context.Background()

	tw := &Twilio{AccountSID: "AC1", AuthToken: "tok", MessageServiceSID: "MG1", BaseURL: srv.URL}
	if err := tw.Send(ctx, "254700000001", "Your code is 123456", "sms"); err != nil {
		t.Fatal(err)
	}
	user, pass, _ := got.BasicAuth()
	if got.URL.Path != "/2010-04-01/Accounts/AC1/Messages.json" || user != "AC1" || pass != "tok" || form.Get("To") != "+254700000001" || form.Get("MessagingServiceSid") != "MG1" {
		t.Errorf("twilio request %s %v", got.URL.Path, form)
	}
	at := &AfricasTalking{Username: "sandbox", APIKey: "k", SenderID: "KEJA", BaseURL: srv.URL}
	if err := at.Send(ctx, "+254700000001", "Your code is 123456", "sms"); err != nil {
		t.Fatal(err)
	}
	if got.URL.Path != "/version1/messaging" || got.Header.Get("apiKey") != "k" || form.Get("username") != "sandbox" || form.Get("to") != "+254700000001" || form.Get("from") != "KEJA" {
		t.Errorf("africastalking request %s %v", got.URL.Path, form)
	}
	status = http.StatusUnauthorized
	if err := at.Send(ctx, "254700000001", "x", "sms"); err == nil {
		t.Error("provider failure not reported")
	}
}

// TestLogRevealsOnlyInDevelopment: the log provider is how a developer
// reads a phone code, and must never put one in production logs.
func TestLogRevealsOnlyInDevelopment(t *testing.T) {
	t.Parallel()
	const phone, code = "254700000001", "654321"
	tests := []struct {
		name   string
		reveal bool
		// wantText: the line carries the code and the whole number.
		wantText bool
	}{
		{name: "development", reveal: true, wantText: true},
		{name: "production", reveal: false, wantText: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			l := &Log{Log: slog.New(slog.NewJSONHandler(&buf, nil)), Reveal: tc.reveal}
			if err := l.Send(context.Background(), phone, "Your code is "+code, "whatsapp"); err != nil {
				t.Fatal(err)
			}
			line := buf.String()
			if got := strings.Contains(line, code); got != tc.wantText {
				t.Errorf("code in the log = %v, want %v: %s", got, tc.wantText, line)
			}
			if got := strings.Contains(line, phone); got != tc.wantText {
				t.Errorf("whole number in the log = %v, want %v: %s", got, tc.wantText, line)
			}
			if !strings.Contains(line, "whatsapp") || !strings.Contains(line, "001") {
				t.Errorf("the line does not say which channel and number: %s", line)
			}
		})
	}
}
