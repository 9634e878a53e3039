package wsapi

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/kejanest/kejanest/realtime/internal/channel"
	"github.com/kejanest/kejanest/realtime/internal/phx"
)

// frame is one queued outbound websocket message.
type frame struct {
	typ  websocket.MessageType
	data []byte
}

// inbound is one received websocket message.
type inbound struct {
	typ  websocket.MessageType
	data []byte
}

// socket is one client connection. Its frames are handled one at a time by
// serve's read loop under mu (the writer's expiry check takes mu too);
// everything sent to the client goes through the bounded queue, drained by
// the writer goroutine.
//
// Drop policy: Send never blocks. When the queue is full the client is not
// keeping up, so the frame is dropped and the socket is killed: a write it
// is stuck in is aborted and the connection closed (with 1013, try again
// later, when the close frame still fits). supabase-js reconnects and
// rejoins, and its channels get "Subscribed to PostgreSQL" again. A slow
// client thus loses its connection instead of delaying anyone else's
// delivery, and never silently misses messages on a connection that stays
// open.
type socket struct {
	s     *Server
	conn  *websocket.Conn
	vsn   phx.Version
	token string // from the upgrade request (Authorization or apikey)
	// headers are the upgrade request's x- headers as a JSON object, for
	// private channels' request.headers.
	headers json.RawMessage

	qmu   sync.Mutex
	queue []frame // grows on demand: idle sockets hold no queue memory
	wake  chan struct{}
	dead  chan struct{}
	// abort cancels in-flight writes when the socket is killed, so a client
	// that stopped reading cannot hold its writer.
	abortCtx context.Context
	abort    context.CancelFunc
	deadOnce sync.Once
	deadCode websocket.StatusCode
	deadMsg  string

	beat chan struct{} // a heartbeat arrived

	mu       sync.Mutex // held while a frame is handled; guards channels
	channels map[string]*channel.Channel
	limiter  *limiter
}

func newSocket(s *Server, c *websocket.Conn, vsn phx.Version, token string, headers json.RawMessage) *socket {
	abortCtx, abort := context.WithCancel(context.Background())
	return &socket{
		abortCtx: abortCtx, abort: abort,
		s: s, conn: c, vsn: vsn, token: token, headers: headers,
		wake:     make(chan struct{}, 1),
		beat:     make(chan struct{}, 1),
		dead:     make(chan struct{}),
		channels: map[string]*channel.Channel{},
		limiter:  newLimiter(s.limits.MaxEventsPerSecond),
	}
}

// kill makes serve close the socket with code and reason.
func (k *socket) kill(code websocket.StatusCode, reason string) {
	k.deadOnce.Do(func() {
		k.deadCode, k.deadMsg = code, reason
		close(k.dead)
		if code == websocket.StatusTryAgainLater {
			// The client is not reading: abort the write it is stuck in
			// (which drops the connection) instead of waiting out
			// WriteTimeout.
			k.abort()
		}
	})
}

func (k *socket) enqueue(f frame) { k.enqueueThen(f, nil) }

// enqueueThen queues f and runs then (if set) before the writer can take f
// or any frame can be queued behind it. then must not send on k.
func (k *socket) enqueueThen(f frame, then func()) {
	select {
	case <-k.dead:
		if then != nil {
			then()
		}
		return
	default:
	}
	k.qmu.Lock()
	full := len(k.queue) >= k.s.limits.QueueSize
	if !full {
		k.queue = append(k.queue, f)
	}
	if then != nil {
		then()
	}
	k.qmu.Unlock()
	if full {
		k.kill(websocket.StatusTryAgainLater, "slow consumer: outbound queue full")
		return
	}
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

// Send implements channel.Outbox.
func (k *socket) Send(m phx.Message) {
	b, err := phx.Encode(k.vsn, m)
	if err != nil {
		k.s.log.Error("encode frame", "event", m.Event, "error", err.Error())
		return
	}
	k.enqueue(frame{websocket.MessageText, b})
}

// SendBinary implements channel.Outbox; vsn 1.0.0 cannot carry binary
// broadcasts.
func (k *socket) SendBinary(b []byte) {
	if k.vsn != phx.V2 {
		return
	}
	k.enqueue(frame{websocket.MessageBinary, b})
}

// writer drains the queue and runs the socket's timers: the heartbeat
// deadline, the token expiry check and kills. It closes the connection when
// the socket must end, which also ends serve's read loop.
func (k *socket) writer(ctx context.Context) {
	idle := time.NewTimer(k.s.idleTimeout)
	defer idle.Stop()
	expiry := time.NewTicker(time.Second)
	defer expiry.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-k.beat:
			idle.Reset(k.s.idleTimeout)
		case <-idle.C:
			k.kill(websocket.StatusNormalClosure, "heartbeat timeout")
		case <-expiry.C:
			// Skip a tick rather than wait while a frame (maybe a join
			// doing database work) is being handled.
			if k.mu.TryLock() {
				k.checkExpiry()
				k.mu.Unlock()
			}
		case <-k.dead:
			_ = k.conn.Close(k.deadCode, k.deadMsg)
			return
		case <-k.wake:
			k.qmu.Lock()
			batch := k.queue
			k.queue = nil
			k.qmu.Unlock()
			// One deadline per batch: WriteTimeout bounds each frame's
			// progress, so the batch gets WriteTimeout per frame.
			wctx, cancel := context.WithTimeout(k.abortCtx, time.Duration(len(batch))*k.s.writeTimeout)
			for _, f := range batch {
				if err := k.conn.Write(wctx, f.typ, f.data); err != nil {
					k.kill(websocket.StatusGoingAway, "write failed")
					break
				}
			}
			cancel()
		}
	}
}

// serve reads and handles the socket's frames until it closes, breaks, goes
// IdleTimeout without a heartbeat, or is killed. Two goroutines serve a
// socket: this read loop and the writer.
func (k *socket) serve() {
	ctx, cancel := context.WithCancel(context.Background())
	writerDone := make(chan struct{})
	go func() { defer close(writerDone); k.writer(ctx) }()
	defer func() {
		cancel()
		k.abort()
		<-writerDone
		k.mu.Lock()
		k.teardownAll()
		k.mu.Unlock()
	}()
	for {
		typ, data, err := k.conn.Read(ctx)
		if err != nil {
			if websocket.CloseStatus(err) == -1 && !errors.Is(err, context.Canceled) {
				k.s.log.Debug("websocket closed", "error", err.Error())
			}
			return
		}
		k.mu.Lock()
		heartbeat := k.handle(ctx, inbound{typ, data})
		k.mu.Unlock()
		if heartbeat {
			select {
			case k.beat <- struct{}{}:
			default:
			}
		}
	}
}

// handle processes one inbound frame; it reports whether it was a
// heartbeat.
func (k *socket) handle(ctx context.Context, in inbound) bool {
	if in.typ == websocket.MessageBinary {
		if k.vsn != phx.V2 {
			k.s.log.Debug("ignoring a binary frame on vsn 1.0.0")
			return false
		}
		m, err := phx.DecodeUserBroadcastPush(in.data)
		if err != nil {
			k.s.log.Debug("ignoring a malformed binary frame", "error", err.Error())
			return false
		}
		k.handleBinaryBroadcast(ctx, m)
		return false
	}
	m, err := phx.Decode(k.vsn, in.data)
	if err != nil {
		k.s.log.Debug("ignoring a malformed frame", "error", err.Error())
		return false
	}
	if m.Topic == phx.TopicPhoenix {
		if m.Event == phx.EventHeartbeat {
			k.reply(m, "ok", nil)
			return true
		}
		return false
	}
	switch m.Event {
	case phx.EventJoin:
		k.handleJoin(ctx, m)
		return false
	case phx.EventLeave:
		if ch := k.channels[m.Topic]; ch != nil {
			k.teardown(ch)
		}
		k.reply(m, "ok", nil)
		return false
	}
	ch := k.channels[m.Topic]
	if ch == nil {
		k.reply(m, "error", map[string]string{"reason": "unmatched topic"})
		return false
	}
	switch m.Event {
	case "access_token":
		k.handleAccessToken(ctx, ch, m)
	case "broadcast":
		k.handleBroadcast(ctx, ch, m)
	case "presence":
		k.handlePresence(ctx, ch, m)
	default:
		k.s.log.Debug("ignoring an unexpected event", "event", m.Event)
	}
	return false
}

// reply queues a phx_reply to req.
func (k *socket) reply(req phx.Message, status string, response any) {
	k.replyThen(req, status, response, nil)
}

// replyThen queues a phx_reply to req and runs then (if set) before the
// reply can be written or any other frame queued behind it.
func (k *socket) replyThen(req phx.Message, status string, response any, then func()) {
	out, err := phx.Reply(req, status, response)
	if err == nil {
		var b []byte
		if b, err = phx.Encode(k.vsn, out); err == nil {
			k.enqueueThen(frame{websocket.MessageText, b}, then)
			return
		}
	}
	k.s.log.Error("encode reply", "event", req.Event, "error", err.Error())
	if then != nil {
		then()
	}
}

// checkExpiry shuts down channels whose token expired.
func (k *socket) checkExpiry() {
	for _, ch := range k.channels {
		if err := k.s.auth.Expired(ch.Claims()); err != nil {
			k.shutdown(ch, err.Error())
		}
	}
}

// shutdown closes ch with a system error and phx_close, as Supabase's
// shutdown_response does.
func (k *socket) shutdown(ch *channel.Channel, message string) {
	ch.Push("system", channel.SystemPayload("system", "error", message, ch.Name))
	k.Send(phx.Message{JoinRef: ch.JoinRef, Ref: ch.JoinRef, Topic: ch.Topic, Event: phx.EventClose})
	k.teardown(ch)
}

// teardown removes ch from the socket, registry and presence.
func (k *socket) teardown(ch *channel.Channel) {
	if k.channels[ch.Topic] == ch {
		delete(k.channels, ch.Topic)
	}
	_ = ch.Transition(channel.Closed)
	k.s.reg.Remove(ch)
	diff := k.s.presence.Untrack(presenceTopic(ch), presenceOwner(ch))
	if !diff.Empty() {
		k.pushToTopic(ch, "presence_diff", diff.JSON())
	}
}

func (k *socket) teardownAll() {
	for _, ch := range k.channels {
		k.teardown(ch)
	}
}
