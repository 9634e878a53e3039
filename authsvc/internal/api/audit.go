package api

import (
	"context"

	"github.com/kejanest/kejanest/authsvc/internal/store"
)

// GoTrue's audit actions.
const (
	auditLogin                 = "login"
	auditLogout                = "logout"
	auditSignup                = "user_signedup"
	auditConfirmationRequested = "user_confirmation_requested"
	auditRecoveryRequested     = "user_recovery_requested"
	auditUserModified          = "user_modified"
	auditUserDeleted           = "user_deleted"
	auditUserInvited           = "user_invited"
	auditPasswordUpdated       = "user_updated_password"
)

// auditAdmin records an admin (service_role) action on u.
func (a *API) auditAdmin(ctx context.Context, u *store.User, action, ip string) {
	traits := map[string]any{"user_id": u.ID, "user_email": u.Email, "user_phone": u.Phone}
	if err := a.store.Audit(ctx, store.AuditEntry{Action: action, ActorID: "00000000-0000-0000-0000-000000000000",
		ActorUsername: "service_role", LogType: "team", Traits: traits, IP: ip}, a.now()); err != nil {
		a.log.WarnContext(ctx, "audit log", "action", action, "error", err.Error())
	}
}

// audit writes an audit entry for u; failures are logged, never returned:
// the audit trail must not break sign-in.
func (a *API) audit(ctx context.Context, q *store.Q, u *store.User, action, logType, ip string, traits map[string]any) {
	name := u.Email
	if name == "" {
		name = u.Phone
	}
	if err := q.Audit(ctx, store.AuditEntry{Action: action, ActorID: u.ID, ActorUsername: name, LogType: logType, Traits: traits, IP: ip}, a.now()); err != nil {
		a.log.WarnContext(ctx, "audit log", "action", action, "error", err.Error())
	}
}
