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

func TestLogNeverWritesTheText(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := &Log{Log: slog.New(slog.NewJSONHandler(&buf, nil))}
	_ = l.Send(context.Background(), "254700000001", "Your code is 654321", "sms")
	if strings.Contains(buf.String(), "654321") || strings.Contains(buf.String(), "254700000001") {
		t.Errorf("log leaks: %s", buf.String())
	}
}
