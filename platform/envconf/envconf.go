// Package envconf reads service configuration from environment variables.
//
// A Reader collects every malformed value instead of stopping at the first, so
// a service that is misconfigured reports all of its problems in one start.
package envconf

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Reader looks variables up through a lookup function (os.LookupEnv by
// default) and records parse errors until Err is called.
type Reader struct {
	lookup func(string) (string, bool)
	errs   []error
}

// New returns a Reader over the process environment.
func New() *Reader { return &Reader{lookup: os.LookupEnv} }

// FromMap returns a Reader over a fixed map; tests use it instead of mutating
// the process environment.
func FromMap(m map[string]string) *Reader {
	return &Reader{lookup: func(k string) (string, bool) { v, ok := m[k]; return v, ok }}
}

// raw returns the first of keys that is set to a non-empty value.
func (r *Reader) raw(keys ...string) (string, string, bool) {
	for _, k := range keys {
		if v, ok := r.lookup(k); ok && strings.TrimSpace(v) != "" {
			return k, strings.TrimSpace(v), true
		}
	}
	return "", "", false
}

// String returns the first set variable among keys, else def. Several keys
// let a service accept Supabase's own name and a shared fallback
// (PGRST_DB_URI, then DATABASE_URL).
func (r *Reader) String(def string, keys ...string) string {
	if _, v, ok := r.raw(keys...); ok {
		return v
	}
	return def
}

// Int returns an integer variable, else def.
func (r *Reader) Int(def int, keys ...string) int {
	k, v, ok := r.raw(keys...)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s: %q is not an integer", k, v))
		return def
	}
	return n
}

// Bool returns a boolean variable (1/0, true/false, yes/no, on/off), else def.
func (r *Reader) Bool(def bool, keys ...string) bool {
	k, v, ok := r.raw(keys...)
	if !ok {
		return def
	}
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true
	case "0", "false", "no", "off":
		return false
	}
	r.errs = append(r.errs, fmt.Errorf("%s: %q is not a boolean", k, v))
	return def
}

// Duration returns a duration variable, else def. A bare integer is read as
// seconds, because Supabase's own variables (GOTRUE_JWT_EXP, ...) are seconds.
func (r *Reader) Duration(def time.Duration, keys ...string) time.Duration {
	k, v, ok := r.raw(keys...)
	if !ok {
		return def
	}
	if n, err := strconv.Atoi(v); err == nil {
		return time.Duration(n) * time.Second
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s: %q is not a duration", k, v))
		return def
	}
	return d
}

// List returns a comma-separated variable as trimmed, non-empty items, else def.
func (r *Reader) List(def []string, keys ...string) []string {
	_, v, ok := r.raw(keys...)
	if !ok {
		return def
	}
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// Err returns every parse error seen so far, joined, or nil.
func (r *Reader) Err() error { return errors.Join(r.errs...) }
