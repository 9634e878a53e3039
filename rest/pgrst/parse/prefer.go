package parse

import (
	"strconv"
	"strings"
)

// Preferences are the Prefer tokens PostgREST understands
// (ApiRequest/Preferences.hs). Empty strings mean "not given".
type Preferences struct {
	Return      string // minimal, headers-only, representation
	Count       string // exact, planned, estimated
	Resolution  string // merge-duplicates, ignore-duplicates
	Missing     string // default, null
	Tx          string // commit, rollback
	Handling    string // lenient, strict
	Timezone    string
	Params      string // single-object
	MaxAffected int64
	HasMax      bool
	// Invalid lists the tokens that were not understood (an error only
	// with handling=strict).
	Invalid []string
}

var preferValues = map[string][]string{
	"return":     {"minimal", "headers-only", "representation"},
	"count":      {"exact", "planned", "estimated"},
	"resolution": {"merge-duplicates", "ignore-duplicates"},
	"missing":    {"default", "null"},
	"tx":         {"commit", "rollback"},
	"handling":   {"lenient", "strict"},
	"params":     {"single-object"},
}

// ParsePrefer parses the Prefer header values (each may hold several
// comma-separated tokens). The first occurrence of a preference wins.
func ParsePrefer(values []string) Preferences {
	var p Preferences
	seen := map[string]bool{}
	total := 0
	for _, hv := range values {
		total += len(hv)
		if total > MaxHeaderLen {
			break
		}
		for _, tok := range strings.Split(hv, ",") {
			tok = strings.TrimSpace(tok)
			if tok == "" {
				continue
			}
			k, v, _ := strings.Cut(tok, "=")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if seen[k] {
				continue
			}
			ok := false
			switch k {
			case "max-affected":
				if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
					p.MaxAffected, p.HasMax, ok = n, true, true
				}
			case "timezone":
				if v != "" && len(v) <= 64 {
					p.Timezone, ok = v, true
				}
			default:
				for _, allowed := range preferValues[k] {
					if v == allowed {
						ok = true
					}
				}
				if ok {
					switch k {
					case "return":
						p.Return = v
					case "count":
						p.Count = v
					case "resolution":
						p.Resolution = v
					case "missing":
						p.Missing = v
					case "tx":
						p.Tx = v
					case "handling":
						p.Handling = v
					case "params":
						p.Params = v
					}
				}
			}
			if ok {
				seen[k] = true
			} else if len(p.Invalid) < MaxItems {
				p.Invalid = append(p.Invalid, tok)
			}
		}
	}
	return p
}

// Strict reports handling=strict.
func (p Preferences) Strict() bool { return p.Handling == "strict" }
