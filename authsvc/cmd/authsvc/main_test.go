package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/authsvc/internal/config"
	"github.com/kejanest/kejanest/platform/envconf"
)

// TestSMSSenderFromEnvironment: the log provider writes the code only
// outside production, and the HTTP providers are chosen by name.
func TestSMSSenderFromEnvironment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		// wantCodeLogged is for the log provider; wantType names the sender.
		wantCodeLogged bool
		wantType       string
	}{
		{name: "default, development", env: nil, wantCodeLogged: true, wantType: "*sms.Log"},
		{name: "log, development", env: map[string]string{"GOTRUE_SMS_PROVIDER": "log", "KEJANEST_ENV": "development"}, wantCodeLogged: true, wantType: "*sms.Log"},
		{name: "log, production", env: map[string]string{"GOTRUE_SMS_PROVIDER": "log", "KEJANEST_ENV": "production"}, wantType: "*sms.Log"},
		{name: "default, production", env: map[string]string{"KEJANEST_ENV": "production"}, wantType: "*sms.Log"},
		{name: "twilio", env: map[string]string{"GOTRUE_SMS_PROVIDER": "twilio"}, wantType: "*sms.Twilio"},
		{name: "africastalking", env: map[string]string{"GOTRUE_SMS_PROVIDER": "africastalking"}, wantType: "*sms.AfricasTalking"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := config.Load(envconf.FromMap(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			s := smsSender(cfg, slog.New(slog.NewJSONHandler(&buf, nil)))
			if got := fmt.Sprintf("%T", s); got != tc.wantType {
				t.Fatalf("sender %s, want %s", got, tc.wantType)
			}
			if tc.wantType != "*sms.Log" {
				return
			}
			if err := s.Send(context.Background(), "254700000001", "Your code is 654321", "sms"); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(buf.String(), "654321"); got != tc.wantCodeLogged {
				t.Errorf("code logged = %v, want %v: %s", got, tc.wantCodeLogged, buf.String())
			}
		})
	}
}
