package config

import (
	"strings"
	"testing"
	"time"

	"github.com/kejanest/kejanest/payments/internal/daraja"
	"github.com/kejanest/kejanest/payments/internal/darajasim"
	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/envconf"
)

func TestDevelopmentDefaults(t *testing.T) {
	t.Parallel()
	c, err := Load(envconf.FromMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"addr", c.Addr(), "127.0.0.1:8081"},
		{"environment", c.Environment, Sandbox},
		{"api", c.APIBaseURL, daraja.SandboxURL},
		{"key", c.ConsumerKey, darajasim.DevConsumerKey},
		{"secret", c.ConsumerSecret, darajasim.DevConsumerSecret},
		{"shortcode", c.ShortCode, "174379"},
		{"party b", c.PartyB, "174379"},
		{"passkey", c.PassKey, darajasim.SandboxPassKey},
		{"type", c.TransactionType, daraja.PayBillOnline},
		{"callback", c.CallbackURL(), "http://127.0.0.1:54321/functions/v1/mpesa-callback"},
		{"query after", c.PendingQueryAfter, 2 * time.Minute},
		{"expire after", c.PendingExpireAfter, 15 * time.Minute},
		{"sweep", c.SweepInterval, 30 * time.Second},
		{"jwt", c.JWTSecret, devkeys.JWTSecret},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	live := map[string]string{
		"MPESA_ENVIRONMENT": "production", "MPESA_CONSUMER_KEY": "ck-live", "MPESA_CONSUMER_SECRET": "cs-live",
		"MPESA_SHORTCODE": "4012345", "MPESA_PASSKEY": "live-passkey", "MPESA_CALLBACK_BASE_URL": "https://kejanest.co.ke",
	}
	with := func(base map[string]string, kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name    string
		env     map[string]string
		wantErr []string // substrings; none means valid
	}{
		{name: "live with everything", env: live},
		{name: "live defaults to the production API", env: live},
		{name: "live without credentials", env: map[string]string{"MPESA_ENVIRONMENT": "production"},
			wantErr: []string{"MPESA_CONSUMER_KEY must be set", "MPESA_CONSUMER_SECRET must be set", "MPESA_SHORTCODE must be set",
				"MPESA_PASSKEY must be set", "MPESA_CALLBACK_BASE_URL must be set"}},
		{name: "live with the sandbox passkey", env: with(live, "MPESA_PASSKEY", darajasim.SandboxPassKey, "MPESA_SHORTCODE", "174379"),
			wantErr: []string{"MPESA_PASSKEY: the sandbox", "MPESA_SHORTCODE: the sandbox"}},
		{name: "live with an http callback", env: with(live, "MPESA_CALLBACK_BASE_URL", "http://kejanest.co.ke"), wantErr: []string{"must be https"}},
		{name: "KEJANEST_ENV=production takes no M-Pesa defaults", env: map[string]string{"KEJANEST_ENV": "production", "JWT_SECRET": strings.Repeat("s", 40)},
			wantErr: []string{"MPESA_CONSUMER_KEY must be set", "MPESA_CALLBACK_BASE_URL must be set"}},
		{name: "KEJANEST_ENV=production refuses the dev JWT secret", env: with(live, "KEJANEST_ENV", "production"), wantErr: []string{"JWT_SECRET"}},
		{name: "KEJANEST_ENV=production against the simulator", env: map[string]string{"KEJANEST_ENV": "production", "JWT_SECRET": strings.Repeat("s", 40),
			"MPESA_API_BASE_URL": "http://darajasim:8089", "MPESA_CONSUMER_KEY": darajasim.DevConsumerKey, "MPESA_CONSUMER_SECRET": darajasim.DevConsumerSecret,
			"MPESA_SHORTCODE": "174379", "MPESA_PASSKEY": darajasim.SandboxPassKey, "MPESA_CALLBACK_BASE_URL": "http://gateway:54321"}},
		{name: "unknown environment", env: map[string]string{"MPESA_ENVIRONMENT": "staging"}, wantErr: []string{"MPESA_ENVIRONMENT"}},
		{name: "account reference too long", env: map[string]string{"MPESA_ACCOUNT_REFERENCE": "KejaNestLimited"}, wantErr: []string{"MPESA_ACCOUNT_REFERENCE"}},
		{name: "description too long", env: map[string]string{"MPESA_TRANSACTION_DESC": "Nestcoins purchase"}, wantErr: []string{"MPESA_TRANSACTION_DESC"}},
		{name: "till", env: map[string]string{"MPESA_TRANSACTION_TYPE": "CustomerBuyGoodsOnline", "MPESA_PARTY_B": "5123456"}},
		{name: "bad transaction type", env: map[string]string{"MPESA_TRANSACTION_TYPE": "PayBill"}, wantErr: []string{"MPESA_TRANSACTION_TYPE"}},
		{name: "expiry before query", env: map[string]string{"MPESA_PENDING_QUERY_AFTER": "10m", "MPESA_PENDING_EXPIRE_AFTER": "5m"}, wantErr: []string{"MPESA_PENDING_EXPIRE_AFTER"}},
		{name: "sweep off", env: map[string]string{"MPESA_SWEEP_INTERVAL": "0"}},
		{name: "shortcode not a number", env: map[string]string{"MPESA_SHORTCODE": "17437x"}, wantErr: []string{"MPESA_SHORTCODE"}},
		{name: "base URL with a query", env: map[string]string{"MPESA_API_BASE_URL": "https://sandbox.safaricom.co.ke?x=1"}, wantErr: []string{"MPESA_API_BASE_URL"}},
		{name: "one pool connection", env: map[string]string{"PAYMENTS_DB_POOL": "1"}, wantErr: []string{"PAYMENTS_DB_POOL"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := Load(envconf.FromMap(tc.env))
			if err == nil {
				err = c.Validate()
			}
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tc.wantErr)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	c, _ := Load(envconf.FromMap(live))
	if c.APIBaseURL != daraja.ProductionURL {
		t.Errorf("production API = %s", c.APIBaseURL)
	}
}
