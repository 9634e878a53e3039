package mailer

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

func TestTemplatesCarryCodeAndLink(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{KindConfirmation, KindInvite, KindMagicLink, KindRecovery, KindEmailChange, KindReauthentication} {
		m, err := Render(kind, "a@b.co", Data{ConfirmationURL: "http://x/verify?token=t&type=signup", Token: "123456", Email: "a@b.co", NewEmail: "c@d.co"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(m.HTML, "123456") || m.Subject == "" {
			t.Errorf("%s: %s", kind, m.HTML)
		}
		if kind != KindReauthentication && !strings.Contains(m.HTML, `href="http://x/verify?token=t&amp;type=signup"`) {
			t.Errorf("%s: no link: %s", kind, m.HTML)
		}
	}
	if _, err := Render("nope", "a@b.co", Data{}); err == nil {
		t.Error("unknown kind rendered")
	}
}

func TestVerificationCodeMail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		minutes  int
		wantHTML string
	}{
		{10, "<p>Your KejaNest verification code is 123456. It expires in 10 minutes.</p>"},
		{1, "<p>Your KejaNest verification code is 123456. It expires in 1 minute.</p>"},
	}
	for _, tt := range tests {
		m, err := Render(KindVerificationCode, "a@b.co", Data{Token: "123456", ExpiresInMinutes: tt.minutes})
		if err != nil {
			t.Fatal(err)
		}
		if m.Subject != "Your KejaNest verification code" || m.HTML != tt.wantHTML || m.To != "a@b.co" {
			t.Errorf("%d minutes: %+v", tt.minutes, m)
		}
	}
}

func TestLogNeverWritesContent(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := &Log{Log: slog.New(slog.NewJSONHandler(&buf, nil))}
	m, _ := Render(KindRecovery, "someone@example.com", Data{Token: "765432", ConfirmationURL: "http://x/?token=secret"})
	_ = l.Send(context.Background(), m)
	if s := buf.String(); strings.Contains(s, "765432") || strings.Contains(s, "secret") || strings.Contains(s, "someone") {
		t.Errorf("log leaks: %s", s)
	}
}
