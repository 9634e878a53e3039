package wsapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/kejanest/kejanest/realtime/internal/auth"
	"github.com/kejanest/kejanest/realtime/internal/broadcast"
	"github.com/kejanest/kejanest/realtime/internal/channel"
)

// maxRESTBody bounds a REST broadcast body.
const maxRESTBody = 1 << 20

// restCaller authorizes a REST call by its bearer token or apikey; it
// writes the 401 itself. Private topics' policies see all the request's
// headers as request.headers, as Supabase passes the request's.
func (s *Server) restCaller(w http.ResponseWriter, r *http.Request) (broadcast.Caller, bool) {
	claims, err := s.auth.Authorize(bearer(r))
	if err != nil {
		var ae *auth.Error
		msg := err.Error()
		if errors.As(err, &ae) {
			msg = ae.Message
		}
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": msg})
		return broadcast.Caller{}, false
	}
	return broadcast.Caller{Claims: claims, Headers: headersJSON(r, false)}, true
}

// publishREST sends one REST message; private topics need the
// realtime.messages INSERT policy (unauthorized ones are skipped, as
// Supabase does).
func (s *Server) publishREST(ctx context.Context, caller broadcast.Caller, m broadcast.RESTMessage) {
	if m.Private {
		if s.authz == nil {
			return
		}
		ok, err := s.authz.CanWrite(ctx, caller, m.Topic, broadcast.ExtBroadcast)
		if err != nil {
			s.log.Warn("authorize REST broadcast", "error", err.Error())
			return
		}
		if !ok {
			return
		}
	}
	s.hub.Publish(broadcast.Message{Private: m.Private, Topic: m.Topic, Event: m.Event, Payload: m.Payload})
}

// publishBinary sends a REST message whose payload is raw bytes.
func (s *Server) publishBinary(ctx context.Context, caller broadcast.Caller, m broadcast.RESTMessage, payload []byte) {
	if m.Private {
		if s.authz == nil {
			return
		}
		if ok, err := s.authz.CanWrite(ctx, caller, m.Topic, broadcast.ExtBroadcast); err != nil || !ok {
			return
		}
	}
	s.hub.Publish(broadcast.Message{Private: m.Private, Topic: m.Topic, Event: m.Event, Binary: payload, IsBinary: true})
}

// serveBroadcast is POST /api/broadcast {"messages":[…]} ⇒ 202.
func (s *Server) serveBroadcast(w http.ResponseWriter, r *http.Request) {
	caller, ok := s.restCaller(w, r)
	if !ok {
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRESTBody))
	if err != nil {
		writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"message": "Payload Too Large"})
		return
	}
	msgs, err := broadcast.ParseREST(body)
	if err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": err.Error()})
		return
	}
	for _, m := range msgs {
		if len(m.Payload) > s.limits.MaxPayloadBytes {
			writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"message": msgPayloadTooBig})
			return
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), dbTimeout)
	defer cancel()
	for _, m := range msgs {
		s.publishREST(ctx, caller, m)
	}
	w.WriteHeader(http.StatusAccepted)
}

// serveBroadcastEvent is POST /api/broadcast/{topic}/events/{event}
// [?private=true] with the payload as body ⇒ 202.
func (s *Server) serveBroadcastEvent(w http.ResponseWriter, r *http.Request) {
	caller, ok := s.restCaller(w, r)
	if !ok {
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRESTBody))
	if err != nil || len(body) > s.limits.MaxPayloadBytes {
		writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"message": msgPayloadTooBig})
		return
	}
	m := broadcast.RESTMessage{Topic: channel.SubTopic(r.PathValue("topic")), Event: r.PathValue("event"), Private: r.URL.Query().Get("private") == "true"}
	binary := strings.HasPrefix(r.Header.Get("Content-Type"), "application/octet-stream")
	if !binary {
		if len(body) == 0 {
			body = []byte("{}")
		}
		if !json.Valid(body) {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "payload must be JSON"})
			return
		}
		m.Payload = body
	}
	ctx, cancel := context.WithTimeout(r.Context(), dbTimeout)
	defer cancel()
	if binary {
		s.publishBinary(ctx, caller, m, body)
	} else {
		s.publishREST(ctx, caller, m)
	}
	w.WriteHeader(http.StatusAccepted)
}
