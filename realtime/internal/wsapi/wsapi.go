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
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/kejanest/kejanest/platform/lifecycle"
	"github.com/kejanest/kejanest/realtime/internal/phx"
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

// joinNotImplemented is the reason every channel join is refused with.
const joinNotImplemented = "realtime is not implemented yet"

// Options configures a Server.
type Options struct {
	Log *slog.Logger
	// IdleTimeout is how long a socket may go without a heartbeat.
	IdleTimeout time.Duration
	// WriteTimeout bounds writing one frame.
	WriteTimeout time.Duration
}

// Server holds the open sockets so Shutdown can close them.
type Server struct {
	log          *slog.Logger
	idleTimeout  time.Duration
	writeTimeout time.Duration

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
	return &Server{log: o.Log, idleTimeout: o.IdleTimeout, writeTimeout: o.WriteTimeout, conns: map[*websocket.Conn]struct{}{}}
}

// Handler routes realtime's endpoints:
//
//	GET /websocket              Phoenix socket (?vsn=1.0.0|2.0.0; default 1.0.0)
//	GET /api/health, /health    200 {"status":"ok"}, whatever the database
//	POST /api/broadcast[/…]     501 {"message":"not implemented"}
//	anything else               404 {"message":"not found"}
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /websocket", s.serveWebsocket)
	health := func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	}
	mux.HandleFunc("GET /api/health", health)
	mux.HandleFunc("GET /health", health)
	notImplemented := func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotImplemented, map[string]string{"message": "not implemented"})
	}
	mux.HandleFunc("POST /api/broadcast", notImplemented)
	mux.HandleFunc("POST /api/broadcast/", notImplemented)
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

func (s *Server) serveWebsocket(w http.ResponseWriter, r *http.Request) {
	vsn, err := phx.ParseVersion(r.URL.Query().Get("vsn"))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"message": err.Error()})
		return
	}
	// Origin is not checked: the gateway fronts every browser origin, and
	// the apikey and token checks come with the channels.
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
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
	s.serveConn(c, vsn)
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

// serveConn answers one socket's frames until it closes, breaks, or goes
// IdleTimeout without a heartbeat.
func (s *Server) serveConn(c *websocket.Conn, vsn phx.Version) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	frames := make(chan []byte)
	readDone := make(chan error, 1)
	go func() {
		for {
			typ, data, err := c.Read(ctx)
			if err != nil {
				readDone <- err
				return
			}
			if typ != websocket.MessageText {
				s.log.Debug("ignoring a binary frame")
				continue
			}
			select {
			case frames <- data:
			case <-ctx.Done():
				return
			}
		}
	}()

	idle := time.NewTimer(s.idleTimeout)
	defer idle.Stop()
	for {
		select {
		case data := <-frames:
			reply, heartbeat := s.answer(vsn, data)
			if heartbeat {
				idle.Reset(s.idleTimeout)
			}
			if reply != nil {
				if err := s.write(ctx, c, reply); err != nil {
					s.log.Debug("websocket write failed", "error", err.Error())
					_ = c.CloseNow()
					return
				}
			}
		case err := <-readDone:
			if websocket.CloseStatus(err) == -1 && !errors.Is(err, context.Canceled) {
				s.log.Debug("websocket closed", "error", err.Error())
			}
			return
		case <-idle.C:
			_ = c.Close(websocket.StatusNormalClosure, "heartbeat timeout")
			return
		}
	}
}

func (s *Server) write(ctx context.Context, c *websocket.Conn, frame []byte) error {
	ctx, cancel := context.WithTimeout(ctx, s.writeTimeout)
	defer cancel()
	return c.Write(ctx, websocket.MessageText, frame)
}

// answer decodes one frame and returns the frame to send back (nil for
// none) and whether it was a heartbeat:
//
//	heartbeat on "phoenix"  phx_reply ok {}
//	phx_join                phx_reply error {"reason": joinNotImplemented}
//	phx_leave               phx_reply ok {}
//	anything else           nothing
func (s *Server) answer(vsn phx.Version, data []byte) (reply []byte, heartbeat bool) {
	m, err := phx.Decode(vsn, data)
	if err != nil {
		s.log.Debug("ignoring a malformed frame", "error", err.Error())
		return nil, false
	}
	var out phx.Message
	switch {
	case m.Topic == phx.TopicPhoenix && m.Event == phx.EventHeartbeat:
		heartbeat = true
		out, err = phx.Reply(m, "ok", nil)
	case m.Event == phx.EventJoin:
		out, err = phx.Reply(m, "error", map[string]string{"reason": joinNotImplemented})
	case m.Event == phx.EventLeave:
		out, err = phx.Reply(m, "ok", nil)
	default:
		return nil, false
	}
	if err == nil {
		reply, err = phx.Encode(vsn, out)
	}
	if err != nil {
		s.log.Error("encode reply", "event", m.Event, "error", err.Error())
		return nil, heartbeat
	}
	return reply, heartbeat
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
