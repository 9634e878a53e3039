// Command realtime serves the Supabase Realtime-compatible Phoenix websocket
// (/realtime/v1/websocket behind the gateway) and its REST endpoints. It is
// configured from the environment (see internal/config) and stops gracefully
// on SIGINT or SIGTERM, closing sockets with 1001.
package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kejanest/kejanest/platform/envconf"
	"github.com/kejanest/kejanest/platform/lifecycle"
	"github.com/kejanest/kejanest/platform/listenfd"
	"github.com/kejanest/kejanest/platform/logging"
	"github.com/kejanest/kejanest/platform/pgpool"
	"github.com/kejanest/kejanest/realtime/internal/auth"
	"github.com/kejanest/kejanest/realtime/internal/broadcast"
	"github.com/kejanest/kejanest/realtime/internal/changes"
	"github.com/kejanest/kejanest/realtime/internal/channel"
	"github.com/kejanest/kejanest/realtime/internal/config"
	"github.com/kejanest/kejanest/realtime/internal/presence"
	"github.com/kejanest/kejanest/realtime/internal/wsapi"
)

const service = "realtime"

func main() { os.Exit(run()) }

func run() int {
	cfg, err := config.Load(envconf.New())
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: invalid configuration:\n%v\n", service, err)
		return 1
	}
	log := logging.New(os.Stderr, service, cfg.SlogLevel())

	ctx, stop := lifecycle.SignalContext(context.Background())
	defer stop()

	// The pool connects lazily: the service starts while PostgreSQL is
	// still coming up.
	pool, err := pgpool.New(context.Background(), cfg.DatabaseURL, pgpool.Options{AppName: "kejanest-" + service})
	if err != nil {
		log.Error("open database pool", "error", err.Error())
		return 1
	}
	defer pool.Close()

	authn, err := auth.New(auth.Options{JWTSecret: cfg.JWTSecret, JWKS: cfg.JWKS, PublishableKey: cfg.PublishableKey, SecretKey: cfg.SecretKey})
	if err != nil {
		log.Error("auth", "error", err.Error())
		return 1
	}
	reg := channel.NewRegistry()
	hub := broadcast.NewHub(reg, pool, log)
	tracker := presence.NewTracker()
	relay := presence.NewRelay(tracker, reg, pool, log, cfg.PresenceReplicaTimeout())
	reader := changes.NewReader(pool)
	store := &broadcast.Store{Pool: pool}
	feed := broadcast.NewFeed(store, hub, log)
	dispatcher := &changes.Dispatcher{Reader: reader, Source: reg.Subscribers, Log: log, Timeout: 5 * time.Second}

	var wg sync.WaitGroup
	defer wg.Wait()
	bgCtx, cancelBg := context.WithCancel(ctx)
	defer cancelBg()

	// Changes are dispatched in commit order by one goroutine; the queue
	// absorbs bursts, and overflowing it is reported like a reconnect.
	queue := make(chan changes.Change, 8192)
	wg.Add(4)
	go func() { defer wg.Done(); hub.Run(bgCtx) }()
	go func() { defer wg.Done(); feed.Run(bgCtx) }()
	// On a signal the relay stops at once and deletes this replica's row,
	// so its presences leave on the other replicas without waiting for the
	// heartbeat timeout.
	go func() { defer wg.Done(); relay.Run(bgCtx) }()
	go func() {
		defer wg.Done()
		for {
			select {
			case <-bgCtx.Done():
				return
			case c := <-queue:
				dispatcher.Dispatch(bgCtx, &c)
			}
		}
	}()
	var lastGap time.Time // only touched by the listener goroutine
	listener := &changes.Listener{
		Connect: func(ctx context.Context) (*pgx.Conn, error) {
			cc, err := pgx.ParseConfig(cfg.DatabaseURL)
			if err != nil {
				return nil, err
			}
			cc.RuntimeParams["application_name"] = "kejanest-realtime-listener"
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			return pgx.ConnectConfig(cctx, cc)
		},
		Channels: []string{changes.NotifyChannel, broadcast.NotifyChannel, broadcast.MessagesChannel, presence.NotifyChannel},
		Handle: func(ch string, payload []byte) {
			switch ch {
			case broadcast.MessagesChannel:
				feed.Notify(payload)
			case broadcast.NotifyChannel:
				hub.HandleNotify(payload)
			case presence.NotifyChannel:
				relay.HandleNotify(payload)
			case changes.NotifyChannel:
				c, err := changes.ParseChange(payload)
				if err != nil {
					log.Warn("ignoring a change notification", "error", err.Error())
					return
				}
				select {
				case queue <- c:
				default:
					// Report a burst of drops once a second, not per change.
					if now := time.Now(); now.Sub(lastGap) > time.Second {
						lastGap = now
						log.Warn("change queue full; dropping changes", "schema", c.Schema, "table", c.Table)
						dispatcher.Gap()
					}
				}
			}
		},
		Backlog: func(reconnect bool) {
			// Presence notifications are not queued while nobody listens
			// either: reload the other replicas' presences every time.
			relay.Resync()
			if reconnect {
				dispatcher.Gap()
			}
		},
		Log: log,
	}
	wg.Add(1)
	go func() { defer wg.Done(); listener.Run(bgCtx) }()

	ln, err := listenfd.Listen(ctx, cfg.Addr())
	if err != nil {
		log.Error("listen", "addr", cfg.Addr(), "error", err.Error())
		return 1
	}
	srv := wsapi.New(wsapi.Options{
		Log: log, Auth: authn, Registry: reg, Hub: hub, Presence: tracker,
		Roles: reader, Authorizer: &broadcast.Authorizer{Pool: pool}, Replayer: store,
		Limits: wsapi.Limits{MaxChannels: cfg.MaxChannels, MaxEventsPerSecond: cfg.MaxEventsPerSecond,
			MaxPayloadBytes: cfg.MaxPayloadKB << 10, QueueSize: cfg.QueueSize},
	})
	if err := srv.Serve(ctx, ln); err != nil {
		log.Error("serve", "error", err.Error())
		return 1
	}
	return 0
}
