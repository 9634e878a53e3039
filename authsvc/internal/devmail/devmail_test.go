package devmail

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/authsvc/internal/mailer"
)

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	box := NewMailbox(10)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go box.ServeSMTP(ctx, ln, slog.New(slog.DiscardHandler))
	port := ln.Addr().(*net.TCPAddr).Port
	msg, _ := mailer.Render(mailer.KindConfirmation, "a@example.com", mailer.Data{ConfirmationURL: "http://x/verify?token=abc&type=signup", Token: "123456"})
	s := &mailer.SMTP{Host: "127.0.0.1", Port: port, From: "admin@kejanest.local", FromName: "KejaNest"}
	if err := s.Send(ctx, msg); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(box.Handler())
	defer srv.Close()
	res, err := srv.Client().Get(srv.URL + "/api/messages?to=a@example.com")
	if err != nil {
		t.Fatal(err)
	}
	var got []Message
	_ = json.NewDecoder(res.Body).Decode(&got)
	if len(got) != 1 || got[0].Subject != "Confirm Your Signup" || len(got[0].Links) != 1 || got[0].Links[0] != "http://x/verify?token=abc&type=signup" || !strings.Contains(got[0].HTML, "123456") {
		t.Fatalf("messages %+v", got)
	}
	res, _ = srv.Client().Get(srv.URL + "/")
	if res.StatusCode != 200 {
		t.Fatalf("page %d", res.StatusCode)
	}
}
