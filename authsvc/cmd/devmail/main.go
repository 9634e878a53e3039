// Command devmail is the local stack's mail catcher: SMTP on
// DEVMAIL_SMTP_ADDR (default 127.0.0.1:54325) and a page plus JSON API of
// the received messages on DEVMAIL_WEB_ADDR (default 127.0.0.1:54324),
// the ports the Supabase CLI gives Inbucket. Development only.
package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/kejanest/kejanest/authsvc/internal/devmail"
	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/lifecycle"
	"github.com/kejanest/kejanest/platform/listenfd"
	"github.com/kejanest/kejanest/platform/logging"
)

func main() { os.Exit(run()) }

func run() int {
	r := envconf.New()
	smtpAddr := r.String("127.0.0.1:54325", "DEVMAIL_SMTP_ADDR")
	webAddr := r.String("127.0.0.1:54324", "DEVMAIL_WEB_ADDR")
	keep := r.Int(500, "DEVMAIL_MAX_MESSAGES")
	if err := r.Err(); err != nil {
		fmt.Fprintf(os.Stderr, "devmail: %v\n", err)
		return 1
	}
	log := logging.New(os.Stderr, "devmail", "info")
	ctx, stop := lifecycle.SignalContext(context.Background())
	defer stop()
	box := devmail.NewMailbox(keep)
	ln, err := listenfd.Listen(ctx, smtpAddr)
	if err != nil {
		log.Error("listen smtp", "error", err.Error())
		return 1
	}
	go func() {
		if err := box.ServeSMTP(ctx, ln, log); err != nil {
			log.Error("smtp", "error", err.Error())
		}
	}()
	web, err := listenfd.Listen(ctx, webAddr)
	if err != nil {
		log.Error("listen web", "error", err.Error())
		return 1
	}
	srv := &http.Server{Handler: box.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	log.Info("devmail listening", "smtp", smtpAddr, "web", webAddr)
	if err := srv.Serve(web); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("web", "error", err.Error())
		return 1
	}
	return 0
}
