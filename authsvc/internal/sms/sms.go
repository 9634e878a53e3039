// Package sms sends one-time codes by SMS: through Twilio's or Africa's
// Talking's HTTP API, or by writing them to the service log (the whole text
// in development, only the fact of sending in production).
package sms

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Sender sends a text to a phone number (E.164, with or without "+").
type Sender interface {
	Send(ctx context.Context, phone, text, channel string) error
}

// Log delivers SMS to the service log, the local stack's SMS provider.
type Log struct {
	Log *slog.Logger
	// Reveal writes the number and the text, code included, so that a
	// developer can sign in by phone without a provider. It must be off in
	// production (KEJANEST_ENV), where a log line would hand the code to
	// whoever reads the logs; off, only the fact and the number's last
	// digits are written. The zero value is the safe one.
	Reveal bool
}

// Send logs the message (Reveal) or the fact that it was sent.
func (l *Log) Send(ctx context.Context, phone, text, channel string) error {
	if l.Reveal {
		l.Log.InfoContext(ctx, "sms sent (log provider, development)", "channel", channel, "phone", phone, "text", text)
		return nil
	}
	tail := phone
	if len(tail) > 3 {
		tail = tail[len(tail)-3:]
	}
	l.Log.InfoContext(ctx, "sms sent (log provider)", "channel", channel, "phone_suffix", tail)
	return nil
}

// Twilio posts to Twilio's Messages API.
type Twilio struct {
	AccountSID, AuthToken, MessageServiceSID string
	// BaseURL defaults to https://api.twilio.com.
	BaseURL string
	Client  *http.Client
}

// Send posts one message.
func (t *Twilio) Send(ctx context.Context, phone, text, channel string) error {
	base := t.BaseURL
	if base == "" {
		base = "https://api.twilio.com"
	}
	to := "+" + strings.TrimPrefix(phone, "+")
	if channel == "whatsapp" {
		to = "whatsapp:" + to
	}
	form := url.Values{"To": {to}, "Body": {text}, "MessagingServiceSid": {t.MessageServiceSID}}
	if channel == "whatsapp" {
		form.Set("From", "whatsapp:"+t.MessageServiceSID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/2010-04-01/Accounts/"+url.PathEscape(t.AccountSID)+"/Messages.json", strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.SetBasicAuth(t.AccountSID, t.AuthToken)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return do(client(t.Client), req, "twilio")
}

// AfricasTalking posts to Africa's Talking's messaging API.
type AfricasTalking struct {
	Username, APIKey, SenderID string
	// BaseURL defaults to https://api.africastalking.com (sandbox:
	// https://api.sandbox.africastalking.com).
	BaseURL string
	Client  *http.Client
}

// Send posts one message.
func (a *AfricasTalking) Send(ctx context.Context, phone, text, _ string) error {
	base := a.BaseURL
	if base == "" {
		base = "https://api.africastalking.com"
	}
	form := url.Values{"username": {a.Username}, "to": {"+" + strings.TrimPrefix(phone, "+")}, "message": {text}}
	if a.SenderID != "" {
		form.Set("from", a.SenderID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/version1/messaging", strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("apiKey", a.APIKey)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return do(client(a.Client), req, "africastalking")
}

func client(c *http.Client) *http.Client {
	if c != nil {
		return c
	}
	return &http.Client{Timeout: 10 * time.Second}
}

func do(c *http.Client, req *http.Request, provider string) error {
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", provider, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: status %d: %s", provider, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return nil
}

// Memory keeps texts, for tests.
type Memory struct {
	mu    sync.Mutex
	texts map[string][]string
}

// Send stores the text under phone.
func (m *Memory) Send(_ context.Context, phone, text, _ string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.texts == nil {
		m.texts = map[string][]string{}
	}
	p := strings.TrimPrefix(phone, "+")
	m.texts[p] = append(m.texts[p], text)
	return nil
}

// Last returns the newest text to phone.
func (m *Memory) Last(phone string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.texts[strings.TrimPrefix(phone, "+")]
	if len(t) == 0 {
		return ""
	}
	return t[len(t)-1]
}
