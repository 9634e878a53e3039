// Package mailer renders authsvc's mails (confirm sign-up, invite, magic
// link, recovery, email change, reauthentication: each with the one-time
// code and, except reauthentication, the link; and the contact-verification
// code the outbox sends) and sends them over SMTP.
package mailer

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"html/template"
	"log/slog"
	"mime"
	"net"
	"net/smtp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Kinds of mail.
const (
	KindConfirmation     = "confirmation"
	KindInvite           = "invite"
	KindMagicLink        = "magic_link"
	KindRecovery         = "recovery"
	KindEmailChange      = "email_change"
	KindReauthentication = "reauthentication"
	// KindVerificationCode carries a contact-verification code from
	// app_private.verification_outbox (KejaNest's own; see package outbox).
	KindVerificationCode = "verification_code"
)

// Data is what a template sees (GoTrue's template variables).
type Data struct {
	SiteURL         string
	ConfirmationURL string
	Token           string
	TokenHash       string
	Email           string
	NewEmail        string
	RedirectTo      string
	// ExpiresInMinutes is how long Token stays valid (KindVerificationCode).
	ExpiresInMinutes int
}

// Message is a rendered mail.
type Message struct {
	Kind    string
	To      string
	Subject string
	HTML    string
}

type tmpl struct {
	subject string
	body    *template.Template
}

var templates = map[string]tmpl{
	KindConfirmation: {"Confirm Your Signup", template.Must(template.New("c").Parse(
		`<h2>Confirm your signup</h2><p>Follow this link to confirm your user:</p><p><a href="{{ .ConfirmationURL }}">Confirm your mail</a></p><p>Alternatively, enter the code: {{ .Token }}</p>`))},
	KindInvite: {"You have been invited", template.Must(template.New("i").Parse(
		`<h2>You have been invited</h2><p>You have been invited to create a user on {{ .SiteURL }}. Follow this link to accept the invite:</p><p><a href="{{ .ConfirmationURL }}">Accept the invite</a></p><p>Alternatively, enter the code: {{ .Token }}</p>`))},
	KindMagicLink: {"Your Magic Link", template.Must(template.New("m").Parse(
		`<h2>Magic Link</h2><p>Follow this link to login:</p><p><a href="{{ .ConfirmationURL }}">Log In</a></p><p>Alternatively, enter the code: {{ .Token }}</p>`))},
	KindRecovery: {"Reset Your Password", template.Must(template.New("r").Parse(
		`<h2>Reset Password</h2><p>Follow this link to reset the password for your user:</p><p><a href="{{ .ConfirmationURL }}">Reset Password</a></p><p>Alternatively, enter the code: {{ .Token }}</p>`))},
	KindEmailChange: {"Confirm Email Change", template.Must(template.New("e").Parse(
		`<h2>Confirm Change of Email</h2><p>Follow this link to confirm the update of your email from {{ .Email }} to {{ .NewEmail }}:</p><p><a href="{{ .ConfirmationURL }}">Change Email</a></p><p>Alternatively, enter the code: {{ .Token }}</p>`))},
	KindReauthentication: {"Confirm Reauthentication", template.Must(template.New("a").Parse(
		`<h2>Confirm reauthentication</h2><p>Enter the code: {{ .Token }}</p>`))},
	KindVerificationCode: {"Your KejaNest verification code", template.Must(template.New("v").Parse(
		`<p>Your KejaNest verification code is {{ .Token }}. It expires in {{ .ExpiresInMinutes }} minute{{ if ne .ExpiresInMinutes 1 }}s{{ end }}.</p>`))},
}

// Render builds the mail of a kind for to.
func Render(kind, to string, d Data) (Message, error) {
	t, ok := templates[kind]
	if !ok {
		return Message{}, fmt.Errorf("no mail template %q", kind)
	}
	var b bytes.Buffer
	if err := t.body.Execute(&b, d); err != nil {
		return Message{}, fmt.Errorf("render %s mail: %w", kind, err)
	}
	return Message{Kind: kind, To: to, Subject: t.subject, HTML: b.String()}, nil
}

// Sender delivers mail.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// SMTP sends through an SMTP server (STARTTLS when offered, AUTH PLAIN
// when a user is configured).
type SMTP struct {
	Host       string
	Port       int
	User, Pass string
	From       string // address
	FromName   string
	// Timeout bounds one delivery; zero means 10 s.
	Timeout time.Duration
}

// Send delivers m.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	timeout := s.Timeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	addr := net.JoinHostPort(s.Host, strconv.Itoa(s.Port))
	d := net.Dialer{Timeout: timeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("smtp dial %s: %w", addr, err)
	}
	_ = conn.SetDeadline(time.Now().Add(timeout))
	c, err := smtp.NewClient(conn, s.Host)
	if err != nil {
		conn.Close()
		return fmt.Errorf("smtp hello: %w", err)
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok && s.User != "" {
		if err := c.StartTLS(nil); err != nil {
			return fmt.Errorf("smtp starttls: %w", err)
		}
	}
	if s.User != "" {
		if err := c.Auth(smtp.PlainAuth("", s.User, s.Pass, s.Host)); err != nil {
			return fmt.Errorf("smtp auth: %w", err)
		}
	}
	if err := c.Mail(s.From); err != nil {
		return fmt.Errorf("smtp mail from: %w", err)
	}
	if err := c.Rcpt(m.To); err != nil {
		return fmt.Errorf("smtp rcpt: %w", err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("smtp data: %w", err)
	}
	if _, err := w.Write(compose(s.From, s.FromName, m)); err != nil {
		return fmt.Errorf("smtp write: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("smtp end data: %w", err)
	}
	return c.Quit()
}

func compose(from, fromName string, m Message) []byte {
	var b bytes.Buffer
	id := make([]byte, 12)
	_, _ = rand.Read(id)
	host := from[strings.LastIndexByte(from, '@')+1:]
	fmt.Fprintf(&b, "From: %s <%s>\r\n", mime.QEncoding.Encode("utf-8", fromName), from)
	fmt.Fprintf(&b, "To: %s\r\n", m.To)
	fmt.Fprintf(&b, "Subject: %s\r\n", mime.QEncoding.Encode("utf-8", m.Subject))
	fmt.Fprintf(&b, "Date: %s\r\n", time.Now().Format(time.RFC1123Z))
	fmt.Fprintf(&b, "Message-ID: <%s@%s>\r\n", hex.EncodeToString(id), host)
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n")
	for _, line := range strings.Split(m.HTML, "\n") {
		if strings.HasPrefix(line, ".") {
			line = "." + line
		}
		b.WriteString(line + "\r\n")
	}
	return b.Bytes()
}

// Log only records that a mail was sent (kind and recipient domain): never
// its content, which holds codes and links. It is the fallback when no
// SMTP host is configured.
type Log struct{ Log *slog.Logger }

// Send logs the fact.
func (l *Log) Send(ctx context.Context, m Message) error {
	domain := m.To[strings.LastIndexByte(m.To, '@')+1:]
	l.Log.InfoContext(ctx, "mail not delivered: no GOTRUE_SMTP_HOST configured", "kind", m.Kind, "to_domain", domain)
	return nil
}

// Memory keeps messages, for tests.
type Memory struct {
	mu   sync.Mutex
	msgs []Message
}

// Send stores m.
func (mm *Memory) Send(_ context.Context, m Message) error {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	mm.msgs = append(mm.msgs, m)
	return nil
}

// Messages returns the messages sent so far.
func (mm *Memory) Messages() []Message {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	return append([]Message(nil), mm.msgs...)
}

// Last returns the newest message to addr.
func (mm *Memory) Last(addr string) (Message, bool) {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	for i := len(mm.msgs) - 1; i >= 0; i-- {
		if strings.EqualFold(mm.msgs[i].To, addr) {
			return mm.msgs[i], true
		}
	}
	return Message{}, false
}
