package pgrst

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5"

	"github.com/kejanest/kejanest/platform/jwtverify"
)

// dbSettingNames are the settings PostgREST reads from the database, without
// their "pgrst." prefix (PostgREST Config/Database.hs dbSettingsNames).
// ApplyDBSettings honours the ones listed in README "In-database
// configuration"; the others are read and ignored.
var dbSettingNames = []string{
	"db_aggregates_enabled", "client_error_verbosity", "db_anon_role", "db_pre_config", "db_extra_search_path",
	"db_max_rows", "db_plan_enabled", "db_pre_request", "db_prepared_statements", "db_root_spec", "db_schemas",
	"db_timezone_enabled", "db_tx_end", "db_hoisted_tx_settings", "jwt_aud", "jwt_role_claim_key", "jwt_secret",
	"jwt_secret_is_base64", "jwt_cache_max_lifetime", "openapi_mode", "openapi_security_active",
	"openapi_server_proxy_uri", "server_cors_allowed_origins", "server_trace_header", "server_timing_enabled",
}

// dbSettingPrefix prefixes every in-database setting.
const dbSettingPrefix = "pgrst."

// dbSettingsSQL reads the login role's pgrst.* settings: those ALTER ROLE …
// IN DATABASE gave it for the current database first, then those ALTER
// ROLE … SET gave it everywhere, then (when %s names one) what the
// pre-config function set with set_config. ALTER DATABASE settings alone
// do not count. $1 is the full setting names.
const dbSettingsSQL = `
with role_setting as (
  select s.setdatabase as db, unnest(s.setconfig) as setting
  from pg_catalog.pg_db_role_setting s
  where s.setrole = current_user::regrole::oid
    and s.setdatabase in (0, (select d.oid from pg_catalog.pg_database d where d.datname = current_catalog))
),
kv as (
  select db, substr(setting, 1, strpos(setting, '=') - 1) as k, substr(setting, strpos(setting, '=') + 1) as v
  from role_setting
  %s
)
select distinct on (k) k, v
from kv
where k = any($1::text[]) and v is not null
order by k, db desc nulls last`

const preConfigSQL = `union all
  select null::oid, x, pg_catalog.current_setting(x, true)
  from unnest($1::text[]) x
  join %s() _ on true`

// DBQuerier is what LoadDBSettings reads through (a pool, a connection or a
// transaction).
type DBQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// LoadDBSettings returns the in-database configuration: the login role's
// pgrst.* settings and, when preConfig names a function ("[schema.]name"),
// the settings it makes with set_config, keyed by name without the prefix.
// Run it in a read-only transaction: the pre-config function's set_config
// calls are meant to be transaction-local.
func LoadDBSettings(ctx context.Context, q DBQuerier, preConfig string) (map[string]string, error) {
	names := make([]string, len(dbSettingNames))
	for i, n := range dbSettingNames {
		names[i] = dbSettingPrefix + n
	}
	extra := ""
	if preConfig != "" {
		extra = fmt.Sprintf(preConfigSQL, quoteQualified(preConfig))
	}
	rows, err := q.Query(ctx, fmt.Sprintf(dbSettingsSQL, extra), names)
	if err != nil {
		return nil, fmt.Errorf("load in-database configuration: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("load in-database configuration: %w", err)
		}
		out[strings.TrimPrefix(k, dbSettingPrefix)] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load in-database configuration: %w", err)
	}
	return out, nil
}

// quoteQualified quotes "schema.name" (or "name") as identifiers.
func quoteQualified(s string) string {
	if schema, name, ok := strings.Cut(s, "."); ok {
		return pgx.Identifier{schema, name}.Sanitize()
	}
	return pgx.Identifier{s}.Sanitize()
}

// ApplyDBSettings returns c with the in-database settings applied over it:
// as in PostgREST, a setting the database gives wins over the environment's
// value (PostgREST Config.hs overrideFromDbOrEnvironment). As there, a
// boolean or a number that does not parse counts as unset (false, no cap);
// a malformed db_tx_end or openapi_mode is an error, and c is then returned
// unchanged.
func (c Config) ApplyDBSettings(settings map[string]string) (Config, error) {
	out := c
	out.ExtraSearchPath = slices.Clone(c.ExtraSearchPath)
	var errs []error
	bad := func(name, v, want string) {
		errs = append(errs, fmt.Errorf("pgrst.%s: %q, want %s", name, v, want))
	}
	// Sorted names, so errors come in a stable order.
	names := make([]string, 0, len(settings))
	for k := range settings {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		v := settings[k]
		switch k {
		case "db_aggregates_enabled":
			out.Aggregates, _ = parseBool(v)
		case "db_anon_role":
			if v == "" {
				bad(k, v, "a role")
			} else {
				out.AnonRole = v
			}
		case "db_schemas":
			if list := splitList(v); len(list) > 0 {
				out.Schemas = list
			} else {
				bad(k, v, "a comma list of schemas")
			}
		case "db_extra_search_path":
			out.ExtraSearchPath = splitList(v)
		case "db_max_rows":
			out.MaxRows = 0
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n > 0 {
				out.MaxRows = n
			}
		case "db_plan_enabled":
			out.PlanEnabled, _ = parseBool(v)
		case "db_pre_request":
			out.PreRequest = strings.TrimSpace(v)
		case "db_tx_end":
			switch v {
			case TxCommit, TxCommitAllowOverride, TxRollback, TxRollbackAllowOverride:
				out.TxEnd = v
			default:
				bad(k, v, "commit, commit-allow-override, rollback or rollback-allow-override")
			}
		case "openapi_mode":
			switch v {
			case OpenAPIFollowPrivileges, OpenAPIIgnorePrivileges, OpenAPIDisabled:
				out.OpenAPIMode = v
			default:
				bad(k, v, "follow-privileges, ignore-privileges or disabled")
			}
		case "jwt_secret":
			if jwtverify.IsJWKS(v) {
				out.JWTSecret, out.JWKS = "", v
			} else {
				out.JWTSecret, out.JWKS = v, ""
			}
		case "jwt_aud":
			out.JWTAud = v
		case "jwt_role_claim_key":
			if _, err := parseJSPath(v); err != nil {
				errs = append(errs, fmt.Errorf("pgrst.%s: %w", k, err))
			} else {
				out.JWTRoleClaimKey = v
			}
		case "server_timing_enabled":
			out.ServerTiming, _ = parseBool(v)
		}
	}
	if len(errs) > 0 {
		return c, errors.Join(errs...)
	}
	return out, nil
}

// parseBool reads a boolean the way PostgREST's coerceBool does: the
// letters of true/false in any case, or an integer (true when positive).
func parseBool(s string) (bool, bool) {
	letters := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
	switch letters {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
		return n > 0, true
	}
	return false, false
}

// splitList splits a comma list, trimming blanks and dropping empty items.
func splitList(s string) []string {
	var out []string
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
