package store

import (
	"context"
	"time"
)

// AuditEntry is one auth.audit_log_entries row's payload, GoTrue's shape.
type AuditEntry struct {
	Action        string
	ActorID       string
	ActorUsername string
	LogType       string // account, token, user, team
	Traits        map[string]any
	IP            string
}

// Audit records an entry.
func (q *Q) Audit(ctx context.Context, e AuditEntry, now time.Time) error {
	payload := map[string]any{"action": e.Action, "actor_id": e.ActorID, "actor_username": e.ActorUsername,
		"actor_via_sso": false, "log_type": e.LogType}
	if len(e.Traits) > 0 {
		payload["traits"] = e.Traits
	}
	_, err := q.db.Exec(ctx, `insert into auth.audit_log_entries (instance_id, id, payload, created_at, ip_address)
		values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), $1, $2, left($3, 64))`, payload, now, e.IP)
	return wrap("write audit log", err)
}
