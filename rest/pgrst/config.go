// Package pgrst is the PostgREST pipeline that rest and rpc serve: parse →
// plan → sqlgen → exec → response over a schema cache. Handler takes one
// framework-free Request and returns a Response or a *pgrsterr.Error; the
// services' httpapi packages adapt Fiber to it.
package pgrst

import (
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
)

// Transaction end modes (PGRST_DB_TX_END).
const (
	TxCommit                = "commit"
	TxCommitAllowOverride   = "commit-allow-override"
	TxRollback              = "rollback"
	TxRollbackAllowOverride = "rollback-allow-override"
)

// OpenAPI modes (PGRST_OPENAPI_MODE).
const (
	OpenAPIFollowPrivileges = "follow-privileges"
	OpenAPIIgnorePrivileges = "ignore-privileges"
	OpenAPIDisabled         = "disabled"
)

// Config is the pipeline's configuration, filled from PGRST_* variables by
// the services' config packages.
type Config struct {
	// Schemas are the exposed schemas; the first is the default.
	Schemas []string
	// ExtraSearchPath follows the request's schema in search_path.
	ExtraSearchPath []string
	// AnonRole is the role of requests without a JWT (or whose JWT has no
	// role claim).
	AnonRole string
	// MaxRows caps reads (0: no cap).
	MaxRows int64
	// Aggregates enables count(), sum() and friends in select.
	Aggregates bool
	// PlanEnabled answers Accept: application/vnd.pgrst.plan with the
	// EXPLAIN of the request's statement (PGRST_DB_PLAN_ENABLED).
	PlanEnabled bool
	// PreRequest is "schema.function" called after the preamble, or "".
	PreRequest string
	// TxEnd is one of the Tx* modes.
	TxEnd string
	// SafeUpdate refuses UPDATE and DELETE without filters.
	SafeUpdate bool
	// OpenAPIMode is one of the OpenAPI* modes.
	OpenAPIMode string
	// ServerTiming adds the Server-Timing header.
	ServerTiming bool
	// DBConfig reads the in-database configuration (PGRST_DB_CONFIG): the
	// login role's pgrst.* settings and PreConfig's, at start and on
	// NOTIFY pgrst, 'reload config' (Handler.ReloadConfig).
	DBConfig bool
	// PreConfig is "[schema.]function" whose set_config calls add to the
	// in-database configuration (PGRST_DB_PRE_CONFIG), or "".
	PreConfig string
	// JWTSecret, JWKS and JWTAud are what the services built their
	// verifier from (PGRST_JWT_SECRET, JWT_JWKS, PGRST_JWT_AUD): an
	// in-database jwt_secret or jwt_aud builds another from them.
	JWTSecret, JWKS, JWTAud string
	// JWTRoleClaimKey is the path to the role in the JWT's claims
	// (PGRST_JWT_ROLE_CLAIM_KEY, default .role).
	JWTRoleClaimKey string
}

func (c Config) preRequest() *schemacache.QI {
	if c.PreRequest == "" {
		return nil
	}
	q := schemacache.QI{Schema: c.Schemas[0], Name: c.PreRequest}
	for i := 0; i < len(c.PreRequest); i++ {
		if c.PreRequest[i] == '.' {
			q = schemacache.QI{Schema: c.PreRequest[:i], Name: c.PreRequest[i+1:]}
			break
		}
	}
	return &q
}
