package parse

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Media types the pipeline knows.
const (
	MTJSON       = "application/json"
	MTObject     = "application/vnd.pgrst.object+json"
	MTArray      = "application/vnd.pgrst.array+json"
	MTCSV        = "text/csv"
	MTGeoJSON    = "application/geo+json"
	MTOpenAPI    = "application/openapi+json"
	MTPlanJSON   = "application/vnd.pgrst.plan+json"
	MTPlanText   = "application/vnd.pgrst.plan+text"
	MTAny        = "*/*"
	MTTextPlain  = "text/plain"
	MTXML        = "text/xml"
	MTOctet      = "application/octet-stream"
	MTURLEncoded = "application/x-www-form-urlencoded"
)

// MediaType is one entry of Accept or the Content-Type.
type MediaType struct {
	// Type is one of the MT* constants, or the raw type for others.
	Type string
	// NullsStripped is the nulls=stripped parameter of the vnd.pgrst types.
	NullsStripped bool
	// PlanFor is, for the plan types, the media type whose statement is
	// explained (the for="…" parameter; application/json by default).
	PlanFor *MediaType
	// PlanOptions are the plan types' EXPLAIN options, in PostgREST's
	// order: analyze, verbose, settings, buffers, wal.
	PlanOptions []string
	q           float64
}

// planOptions are the options=a|b values PostgREST knows, in its order.
var planOptions = []string{"analyze", "verbose", "settings", "buffers", "wal"}

// IsPlan reports the EXPLAIN media types.
func (m MediaType) IsPlan() bool { return m.Type == MTPlanJSON || m.Type == MTPlanText }

// String renders the type as PostgREST names it in errors and in
// Content-Type (MediaType.hs toMime).
func (m MediaType) String() string {
	if m.IsPlan() {
		s := m.Type + `; for="` + m.planFor().String() + `"`
		if len(m.PlanOptions) > 0 {
			s += "; options=" + strings.Join(m.PlanOptions, "|")
		}
		return s
	}
	if m.NullsStripped {
		return m.Type + ";nulls=stripped"
	}
	return m.Type
}

// planFor is the explained media type.
func (m MediaType) planFor() MediaType {
	if m.PlanFor == nil {
		return MediaType{Type: MTJSON}
	}
	return *m.PlanFor
}

// PlanTarget is the media type a plan type explains the statement of.
func (m MediaType) PlanTarget() MediaType { return m.planFor() }

func decodeMediaType(s string) MediaType {
	parts := strings.Split(s, ";")
	t := strings.ToLower(strings.TrimSpace(parts[0]))
	m := MediaType{Type: t, q: 1}
	switch t {
	case "application/*":
		m.Type = MTAny
	case "application/vnd.pgrst.plan":
		m.Type = MTPlanText
	}
	for _, prm := range parts[1:] {
		k, v, _ := strings.Cut(strings.TrimSpace(prm), "=")
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "q":
			if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
				m.q = f
			}
		case "nulls":
			m.NullsStripped = strings.TrimSpace(v) == "stripped"
		case "for":
			if m.IsPlan() {
				f := decodeMediaType(strings.Trim(strings.TrimSpace(v), `"`))
				if !f.IsPlan() {
					f.q = 0
					m.PlanFor = &f
				}
			}
		case "options":
			if m.IsPlan() {
				given := strings.Split(strings.TrimSpace(v), "|")
				for _, o := range planOptions {
					if slices.Contains(given, o) {
						m.PlanOptions = append(m.PlanOptions, o)
					}
				}
			}
		}
	}
	return m
}

// ParseAccept returns the acceptable types, most preferred first; an
// empty header accepts anything.
func ParseAccept(h string) []MediaType {
	if len(h) > MaxHeaderLen {
		h = h[:MaxHeaderLen]
	}
	if strings.TrimSpace(h) == "" {
		return []MediaType{{Type: MTAny, q: 1}}
	}
	var out []MediaType
	for _, part := range strings.Split(h, ",") {
		if strings.TrimSpace(part) == "" || len(out) >= MaxItems {
			continue
		}
		m := decodeMediaType(part)
		if m.q > 0 {
			out = append(out, m)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].q > out[j].q })
	return out
}

// ParseContentType decodes a request Content-Type (default JSON).
func ParseContentType(h string) MediaType {
	if strings.TrimSpace(h) == "" {
		return MediaType{Type: MTJSON}
	}
	return decodeMediaType(h)
}
