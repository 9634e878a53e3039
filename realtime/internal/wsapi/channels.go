package wsapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kejanest/kejanest/realtime/internal/auth"
	"github.com/kejanest/kejanest/realtime/internal/broadcast"
	"github.com/kejanest/kejanest/realtime/internal/changes"
	"github.com/kejanest/kejanest/realtime/internal/channel"
	"github.com/kejanest/kejanest/realtime/internal/phx"
	"github.com/kejanest/kejanest/realtime/internal/presence"
)

// dbTimeout bounds the database work of one join or token refresh.
const dbTimeout = 5 * time.Second

// Supabase Realtime's messages.
const (
	msgNoDatabase     = "Realtime was unable to connect to the project database"
	msgTooManyChannel = "ChannelRateLimitReached: Too many channels"
	msgTooManyEvents  = "Too many messages per second"
	msgSubscribed     = "Subscribed to PostgreSQL"
	msgPayloadTooBig  = "Payload size exceeded"
	msgTrackTooBig    = "Track message size exceeded"
	msgTrackNotMap    = "Presence track payload must be a map"
)

func errReason(reason string) map[string]string { return map[string]string{"reason": reason} }

// tokenFor picks the token a channel is authorized with: the join's
// access_token unless it is an sb_ API key (then the socket's own), else
// the socket's Authorization or apikey.
func (k *socket) tokenFor(p channel.JoinPayload) string {
	t := p.Token()
	if t == "" || auth.IsAPIKey(t) {
		if k.token != "" {
			return k.token
		}
	}
	return t
}

func authReason(err error) string {
	var ae *auth.Error
	if !errors.As(err, &ae) {
		return err.Error()
	}
	switch {
	case strings.HasPrefix(ae.Message, "Token has expired"), ae == auth.ErrMissingClaims:
		return "InvalidJWTToken: " + ae.Message
	case strings.HasPrefix(ae.Message, "The token provided"):
		return "MalformedJWT: " + ae.Message
	case strings.HasPrefix(ae.Message, "Failed to validate"):
		return "JwtSignatureError: " + ae.Message
	}
	return "InvalidJWTToken: " + ae.Message
}

func (k *socket) handleJoin(ctx context.Context, m phx.Message) {
	if !strings.HasPrefix(m.Topic, channel.TopicPrefix) {
		k.reply(m, "error", errReason("unmatched topic"))
		return
	}
	if m.Topic == channel.TopicPrefix {
		k.reply(m, "error", errReason("TopicNameRequired: You must provide a topic name"))
		return
	}
	if old := k.channels[m.Topic]; old != nil {
		// Phoenix closes the previous join of the same topic.
		k.Send(phx.Message{JoinRef: old.JoinRef, Ref: old.JoinRef, Topic: old.Topic, Event: phx.EventClose})
		k.teardown(old)
	}
	if len(k.channels) >= k.s.limits.MaxChannels {
		k.reply(m, "error", errReason(msgTooManyChannel))
		return
	}
	p, err := channel.ParseJoin(m.Payload)
	if err != nil {
		k.reply(m, "error", errReason("InvalidJoinPayload: "+err.Error()))
		return
	}
	claims, err := k.s.auth.Authorize(k.tokenFor(p))
	if err != nil {
		k.reply(m, "error", errReason(authReason(err)))
		return
	}
	cfg := p.Config
	subs, replyBindings, subErrs := cfg.Subscriptions()
	if len(subErrs) > 0 {
		// Supabase subscribes a channel's bindings together or not at all.
		subs = nil
	}
	replay, wantReplay, err := cfg.ReplayRequest()
	if err != nil {
		k.reply(m, "error", errReason(err.Error()))
		return
	}
	ch := channel.New(m.Topic, m.JoinRef, cfg, claims, k)
	ch.SetSubscriptions(subs)

	dctx, cancel := context.WithTimeout(ctx, dbTimeout)
	defer cancel()
	if len(subs) > 0 {
		if k.s.roles == nil {
			k.reply(m, "error", errReason(msgNoDatabase))
			return
		}
		if err := k.s.roles.CheckRole(dctx, claims); err != nil {
			k.s.log.Info("join refused: role", "role", claims.Role, "error", err.Error())
			if errors.Is(err, changes.ErrRole) {
				k.reply(m, "error", errReason(fmt.Sprintf("Unauthorized: role %q is not allowed", claims.Role)))
			} else {
				k.reply(m, "error", errReason(msgNoDatabase))
			}
			return
		}
		err := k.s.roles.CheckSubscriptions(dctx, claims.Role, subs)
		var ce *changes.CheckError
		switch {
		case errors.As(err, &ce):
			// As the trigger's exception: the join succeeds, no binding is
			// subscribed, and the channel is told why.
			bad := subs[ce.Index]
			subErrs = []error{channel.SubscribeFailed(bad.Event, bad.Schema, bad.Table, bad.Filter.Inspect(), bad.Select, ce.Message)}
			subs = nil
			ch.SetSubscriptions(nil)
		case err != nil:
			k.s.log.Warn("check subscriptions", "error", err.Error())
			k.reply(m, "error", errReason(msgNoDatabase))
			return
		}
	}
	if cfg.Private {
		ok, err := k.canRead(dctx, claims, ch)
		if err != nil {
			k.s.log.Warn("authorize private channel", "error", err.Error())
			k.reply(m, "error", errReason(msgNoDatabase))
			return
		}
		if !ok {
			k.reply(m, "error", errReason("Unauthorized: You do not have permissions to read from this Channel topic: "+ch.Name))
			return
		}
	}

	var replayed []broadcast.Message
	if wantReplay {
		if k.s.replayer == nil {
			k.reply(m, "error", errReason("UnableToReplayMessages: Realtime was unable to replay messages"))
			return
		}
		replayed, err = k.s.replayer.Replay(dctx, ch.Name, replay.Since, replay.Limit)
		if err != nil {
			k.s.log.Warn("replay", "topic", ch.Name, "error", err.Error())
			k.reply(m, "error", errReason("UnableToReplayMessages: Realtime was unable to replay messages"))
			return
		}
		ids := make([]string, len(replayed))
		for i, r := range replayed {
			ids[i] = r.ID
		}
		ch.SetReplayed(ids)
	}

	response := map[string]any{"postgres_changes": replyBindings}
	// The channel is registered before the client can read the reply (as
	// Phoenix subscribes before replying), so nothing sent to the topic
	// once the client knows it joined is missed, and the reply comes first.
	k.replyThen(m, "ok", response, func() {
		_ = ch.Transition(channel.Joined)
		k.channels[m.Topic] = ch
		k.s.reg.Add(ch)
	})
	for _, r := range replayed {
		k.pushReplayed(ch, r)
	}
	if len(cfg.PostgresChanges) > 0 {
		if len(subErrs) > 0 {
			ch.Push("system", channel.SystemPayload("postgres_changes", "error", subErrs[0].Error(), ch.Name))
		} else if len(subs) > 0 {
			ch.Push("system", channel.SystemPayload("postgres_changes", "ok", msgSubscribed, ch.Name))
		}
	}
	if ch.PresenceEnabled {
		ch.Push("presence_state", k.s.presence.State(presenceTopic(ch)))
	}
}

// pushReplayed sends a replayed message with meta {replayed: true, id}; a
// binary one only to a 2.0.0 socket (1.0.0 cannot carry it), as Supabase.
func (k *socket) pushReplayed(ch *channel.Channel, r broadcast.Message) {
	meta, _ := json.Marshal(map[string]any{"replayed": true, "id": r.ID})
	if r.IsBinary {
		frame, err := phx.EncodeUserBroadcast(ch.Topic, r.Event, meta, phx.EncodingBinary, r.Binary)
		if err == nil {
			ch.PushBinary(frame)
		}
		return
	}
	ch.Push("broadcast", broadcast.PayloadMeta(r.Event, r.Payload, meta))
}

// canRead is the private-channel read check: broadcast, or presence when
// presence is enabled.
func (k *socket) canRead(ctx context.Context, claims *auth.Claims, ch *channel.Channel) (bool, error) {
	if k.s.authz == nil {
		return false, errors.New("no database")
	}
	caller := broadcast.Caller{Claims: claims, Headers: k.headers}
	ok, err := k.s.authz.CanRead(ctx, caller, ch.Name, broadcast.ExtBroadcast)
	if err != nil || ok || !ch.PresenceEnabled {
		return ok, err
	}
	return k.s.authz.CanRead(ctx, caller, ch.Name, broadcast.ExtPresence)
}

func (k *socket) handleAccessToken(ctx context.Context, ch *channel.Channel, m phx.Message) {
	var p struct {
		AccessToken *string `json:"access_token"`
	}
	if json.Unmarshal(m.Payload, &p) != nil || p.AccessToken == nil || *p.AccessToken == "" || auth.IsAPIKey(*p.AccessToken) {
		return
	}
	claims, err := k.s.auth.Authorize(*p.AccessToken)
	if err != nil {
		var ae *auth.Error
		msg := err.Error()
		if errors.As(err, &ae) {
			msg = ae.Message
		}
		k.shutdown(ch, msg)
		return
	}
	dctx, cancel := context.WithTimeout(ctx, dbTimeout)
	defer cancel()
	if ch.HasSubscriptions() && k.s.roles != nil {
		if err := k.s.roles.CheckRole(dctx, claims); err != nil {
			msg := msgNoDatabase
			if errors.Is(err, changes.ErrRole) {
				msg = fmt.Sprintf("Unauthorized: role %q is not allowed", claims.Role)
			}
			k.shutdown(ch, msg)
			return
		}
	}
	if ch.Private {
		ok, err := k.canRead(dctx, claims, ch)
		if err != nil {
			k.shutdown(ch, msgNoDatabase)
			return
		}
		if !ok {
			k.shutdown(ch, "You no longer have permission to read from this Channel topic: "+ch.Name)
			return
		}
	}
	ch.SetClaims(claims)
}

// allowEvent applies the socket's message rate; over it, the channel is
// shut down as Supabase does.
func (k *socket) allowEvent(ch *channel.Channel) bool {
	if k.limiter.allow() {
		return true
	}
	k.shutdown(ch, msgTooManyEvents)
	return false
}

// canWrite checks (once per token) the private channel's INSERT policy.
func (k *socket) canWrite(ctx context.Context, ch *channel.Channel, extension string) bool {
	if !ch.Private {
		return true
	}
	if extension == broadcast.ExtBroadcast {
		if ok, known := ch.CanWrite(); known {
			return ok
		}
	}
	if k.s.authz == nil {
		return false
	}
	dctx, cancel := context.WithTimeout(ctx, dbTimeout)
	defer cancel()
	ok, err := k.s.authz.CanWrite(dctx, broadcast.Caller{Claims: ch.Claims(), Headers: k.headers}, ch.Name, extension)
	if err != nil {
		k.s.log.Warn("authorize private write", "error", err.Error())
		return false
	}
	if extension == broadcast.ExtBroadcast {
		ch.SetCanWrite(ok)
	}
	return ok
}

func (k *socket) handleBroadcast(ctx context.Context, ch *channel.Channel, m phx.Message) {
	if !k.allowEvent(ch) {
		return
	}
	var p struct {
		Type    string          `json:"type"`
		Event   string          `json:"event"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(m.Payload, &p); err != nil {
		return
	}
	k.broadcast(ctx, ch, m, broadcast.Message{Private: ch.Private, Topic: ch.Name, Event: p.Event, Payload: p.Payload, Sender: ch.ID}, len(p.Payload))
}

func (k *socket) handleBinaryBroadcast(ctx context.Context, b phx.UserBroadcastPush) {
	ch := k.channels[b.Topic]
	req := phx.Message{JoinRef: b.JoinRef, Ref: b.Ref, Topic: b.Topic, Event: "broadcast"}
	if ch == nil {
		k.reply(req, "error", errReason("unmatched topic"))
		return
	}
	if !k.allowEvent(ch) {
		return
	}
	msg := broadcast.Message{Private: ch.Private, Topic: ch.Name, Event: b.Event, Sender: ch.ID}
	if b.Encoding == phx.EncodingJSON {
		if !json.Valid(b.Payload) {
			return
		}
		msg.Payload = b.Payload
	} else {
		msg.IsBinary, msg.Binary = true, b.Payload
	}
	k.broadcast(ctx, ch, req, msg, len(b.Payload))
}

func (k *socket) broadcast(ctx context.Context, ch *channel.Channel, req phx.Message, msg broadcast.Message, size int) {
	if size > k.s.limits.MaxPayloadBytes {
		if ch.Ack {
			k.reply(req, "error", errReason(msgPayloadTooBig))
		}
		return
	}
	if !k.canWrite(ctx, ch, broadcast.ExtBroadcast) {
		if ch.Ack {
			k.reply(req, "error", errReason("Unauthorized: You do not have permissions to write to this Channel topic: "+ch.Name))
		}
		return
	}
	k.s.hub.Publish(msg)
	if ch.Ack {
		k.reply(req, "ok", nil)
	}
}

func presenceTopic(ch *channel.Channel) channel.TopicKey { return ch.Key() }

func presenceOwner(ch *channel.Channel) presence.Owner { return presence.Owner(ch.ID) }

// pushToTopic sends event to every channel joined to ch's topic on this
// replica, ch included.
func (k *socket) pushToTopic(ch *channel.Channel, event string, payload json.RawMessage) {
	for _, c := range k.s.reg.Members(ch.Key()) {
		c.Push(event, payload)
	}
}

func (k *socket) handlePresence(ctx context.Context, ch *channel.Channel, m phx.Message) {
	if !k.allowEvent(ch) {
		return
	}
	var p struct {
		Event   string          `json:"event"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(m.Payload, &p); err != nil {
		k.reply(m, "error", errReason(msgTrackNotMap))
		return
	}
	switch p.Event {
	case "track":
		if len(p.Payload) > k.s.limits.MaxPayloadBytes {
			k.shutdown(ch, msgTrackTooBig)
			return
		}
		if !k.canWrite(ctx, ch, broadcast.ExtPresence) {
			k.reply(m, "error", errReason("Unauthorized: You do not have permissions to track presence on this Channel topic: "+ch.Name))
			return
		}
		if ch.PresenceKey == "" {
			b := make([]byte, 16)
			_, _ = rand.Read(b)
			ch.PresenceKey = hex.EncodeToString(b)
		}
		if !ch.PresenceEnabled {
			ch.PresenceEnabled = true
			ch.Push("presence_state", k.s.presence.State(presenceTopic(ch)))
		}
		diff, err := k.s.presence.Track(presenceTopic(ch), presenceOwner(ch), ch.PresenceKey, p.Payload)
		if err != nil {
			k.reply(m, "error", errReason(msgTrackNotMap))
			return
		}
		k.reply(m, "ok", nil)
		k.pushToTopic(ch, "presence_diff", diff.JSON())
	case "untrack":
		diff := k.s.presence.Untrack(presenceTopic(ch), presenceOwner(ch))
		k.reply(m, "ok", nil)
		if !diff.Empty() {
			k.pushToTopic(ch, "presence_diff", diff.JSON())
		}
	default:
		k.reply(m, "error", errReason("unknown presence event"))
	}
}
