// Package wsapi serves realtime's HTTP surface on net/http: the Phoenix
// websocket at /websocket, the REST broadcast endpoint and health.
//
// It runs on net/http rather than Fiber because coder/websocket needs
// http.Hijacker (style.md §1).
package wsapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/lifecycle"
	"github.com/kejanest/kejanest/realtime/internal/auth"
	"github.com/kejanest/kejanest/realtime/internal/broadcast"
	"github.com/kejanest/kejanest/realtime/internal/changes"
	"github.com/kejanest/kejanest/realtime/internal/channel"
	"github.com/kejanest/kejanest/realtime/internal/phx"
	"github.com/kejanest/kejanest/realtime/internal/presence"
)

// Defaults for zero Options fields.
const (
	// DefaultIdleTimeout closes a socket that sent no heartbeat for this
	// long; clients send one every 25 s.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultWriteTimeout bounds writing one frame to a slow client.
	DefaultWriteTimeout = 10 * time.Second
)

// maxFrameBytes is the largest frame a client may send.
const maxFrameBytes = 1 << 20

// Limits are the per-socket limits, with Supabase's defaults.
type Limits struct {
	// MaxChannels is the most channels one socket may join
	// (max_channels_per_client, 100).
	MaxChannels int
	// MaxEventsPerSecond is the sustained rate of broadcast and presence
	// pushes a socket may send (bursts up to twice that).
	MaxEventsPerSecond int
	// MaxPayloadBytes bounds a broadcast or presence payload.
	MaxPayloadBytes int
	// QueueSize is the per-socket outbound queue length; a socket whose
	// queue is full is a slow consumer and is disconnected (1013).
	QueueSize int
}

func (l *Limits) defaults() {
	if l.MaxChannels <= 0 {
		l.MaxChannels = 100
	}
	if l.MaxEventsPerSecond <= 0 {
		l.MaxEventsPerSecond = 100
	}
	if l.MaxPayloadBytes <= 0 {
		l.MaxPayloadBytes = 256 << 10
	}
	if l.QueueSize <= 0 {
		l.QueueSize = 1024
	}
}

// RoleChecker verifies that the service may assume a role, and checks
// postgres_changes subscriptions against their tables as Supabase's
// subscription trigger does (changes.Reader).
type RoleChecker interface {
	CheckRole(ctx context.Context, claims *auth.Claims) error
	CheckSubscriptions(ctx context.Context, role string, subs []changes.Subscription) error
}

// ChannelAuthorizer evaluates realtime.messages policies
// (broadcast.Authorizer).
type ChannelAuthorizer interface {
	CanRead(ctx context.Context, c broadcast.Caller, topic, extension string) (bool, error)
	CanWrite(ctx context.Context, c broadcast.Caller, topic, extension string) (bool, error)
}

// Options configures a Server. Zero fields get working defaults without a
// database: postgres_changes and private channels then refuse to join.
type Options struct {
	Log *slog.Logger
	// IdleTimeout is how long a socket may go without a heartbeat.
	IdleTimeout time.Duration
	// WriteTimeout bounds writing one frame.
	WriteTimeout time.Duration
	// Auth verifies tokens; nil uses the development JWT secret and keys.
	Auth     *auth.Authenticator
	Registry *channel.Registry
	Hub      *broadcast.Hub
	// Presence holds presence state; a presence.Relay on it shares it with
	// the other replicas (nil: a tracker of this process alone).
	Presence   *presence.Tracker
	Roles      RoleChecker
	Authorizer ChannelAuthorizer
	// Replayer reads a private topic's recent database messages for
	// config.broadcast.replay (nil: replay is refused as unavailable).
	Replayer Replayer
	Limits   Limits
}

// Replayer reads messages for replay (broadcast.Store).
type Replayer interface {
	Replay(ctx context.Context, topic string, sinceMillis int64, limit int) ([]broadcast.Message, error)
}

// Server holds the open sockets so Shutdown can close them.
type Server struct {
	log          *slog.Logger
	idleTimeout  time.Duration
	writeTimeout time.Duration
	auth         *auth.Authenticator
	reg          *channel.Registry
	hub          *broadcast.Hub
	presence     *presence.Tracker
	roles        RoleChecker
	authz        ChannelAuthorizer
	replayer     Replayer
	limits       Limits

	mu      sync.Mutex
	conns   map[*websocket.Conn]struct{}
	closing bool
	wg      sync.WaitGroup // one per open socket
}

// New returns a Server with no open sockets.
func New(o Options) *Server {
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.Auth == nil {
		a, err := auth.New(auth.Options{JWTSecret: devkeys.JWTSecret, PublishableKey: devkeys.PublishableKey})
		if err != nil {
			panic(err) // the development secret is valid
		}
		o.Auth = a
	}
	if o.Registry == nil {
		o.Registry = channel.NewRegistry()
	}
	if o.Hub == nil {
		o.Hub = broadcast.NewHub(o.Registry, nil, o.Log)
	}
	if o.Presence == nil {
		o.Presence = presence.NewTracker()
	}
	o.Limits.defaults()
	return &Server{
		log: o.Log, idleTimeout: o.IdleTimeout, writeTimeout: o.WriteTimeout,
		auth: o.Auth, reg: o.Registry, hub: o.Hub, presence: o.Presence, roles: o.Roles, authz: o.Authorizer, replayer: o.Replayer,
		limits: o.Limits, conns: map[*websocket.Conn]struct{}{},
	}
}

// Handler routes realtime's endpoints:
//
//	GET /websocket                           Phoenix socket (?vsn=1.0.0|2.0.0; default 1.0.0)
//	GET /api/health, /health                 200 {"status":"ok"}
//	POST /api/broadcast                      202, {"messages":[{topic,event,payload,private}]}
//	POST /api/broadcast/{topic}/events/{event}  202, body is the payload (?private=true)
//	anything else                            404 {"message":"not found"}
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /websocket", s.serveWebsocket)
	health := func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	}
	mux.HandleFunc("GET /api/health", health)
	mux.HandleFunc("GET /health", health)
	mux.HandleFunc("POST /api/broadcast", s.serveBroadcast)
	mux.HandleFunc("POST /api/broadcast/{topic}/events/{event}", s.serveBroadcastEvent)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "not found"})
	})
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // a failed write means the client left
}

// bearer returns the request's token: Authorization: Bearer …, else the
// apikey header or query parameter.
func bearer(r *http.Request) string {
	if h := r.Header.Get("Authorization"); len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	if k := r.Header.Get("apikey"); k != "" {
		return k
	}
	return r.URL.Query().Get("apikey")
}

func (s *Server) serveWebsocket(w http.ResponseWriter, r *http.Request) {
	vsn, err := phx.ParseVersion(r.URL.Query().Get("vsn"))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"message": err.Error()})
		return
	}
	// Origin is not checked: the gateway fronts every browser origin. The
	// socket is authorized per channel, by the join's access_token, else
	// this request's Authorization or apikey.
	token := bearer(r)
	// The upgrade's x- headers are what a private channel's policies see as
	// request.headers, as Supabase passes Phoenix's x_headers.
	headers := headersJSON(r, true)
	// Compression off: per-socket flate state would cost far more memory
	// than the small frames it saves (Supabase does not negotiate it either).
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true, CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		s.log.Debug("websocket upgrade failed", "error", err.Error())
		return // Accept has answered
	}
	if !s.add(c) {
		_ = c.Close(websocket.StatusGoingAway, "server shutting down")
		return
	}
	defer s.remove(c)
	c.SetReadLimit(maxFrameBytes)
	newSocket(s, c, vsn, token, headers).serve()
}

func (s *Server) add(c *websocket.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	return true
}

func (s *Server) remove(c *websocket.Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	s.wg.Done()
}

// Shutdown refuses new sockets, closes the open ones with 1001 (going away)
// and waits for them to finish, or for ctx to end.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	open := make([]*websocket.Conn, 0, len(s.conns))
	for c := range s.conns {
		open = append(open, c)
	}
	s.mu.Unlock()

	for _, c := range open {
		go func() { _ = c.Close(websocket.StatusGoingAway, "server shutting down") }()
	}
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		for _, c := range open {
			_ = c.CloseNow()
		}
		return fmt.Errorf("close websockets: %w", ctx.Err())
	}
}

// Serve serves Handler on ln until ctx is cancelled, then stops accepting,
// closes every socket with 1001, and waits up to lifecycle.ShutdownGrace for
// in-flight requests and sockets to finish; whatever outlives the grace is
// dropped (logged as a warning). It returns nil once stopped, or the error
// that stopped it from serving.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	s.log.Info("listening", "addr", ln.Addr().String())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}

	s.log.Info("shutting down", "grace", lifecycle.ShutdownGrace.String())
	shutdownCtx, cancel := context.WithTimeout(context.Background(), lifecycle.ShutdownGrace)
	defer cancel()
	// Hijacked websocket connections are invisible to http.Server.Shutdown,
	// so close them alongside it.
	wsDone := make(chan error, 1)
	go func() { wsDone <- s.Shutdown(shutdownCtx) }()
	httpErr := srv.Shutdown(shutdownCtx)
	wsErr := <-wsDone
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	if err := errors.Join(httpErr, wsErr); err != nil {
		if !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("shutdown: %w", err)
		}
		// Something outlived the grace: drop it rather than wait.
		s.log.Warn("shutdown grace expired with connections still open", "grace", lifecycle.ShutdownGrace.String())
		_ = srv.Close()
	}
	s.log.Info("stopped")
	return nil
}
