package wsapi

import (
	"encoding/json"
	"net/http"
	"strings"
)

// headersJSON is the request's headers as the JSON object a private
// channel's policies read from request.headers: names in lower case and a
// repeated header's values joined with ", " (cookies with "; "), as Cowboy
// hands them to Supabase Realtime. xOnly keeps the names that start with
// "x-", which is what Phoenix gives a socket (connect_info x_headers); a
// REST broadcast passes them all, the host among them.
func headersJSON(r *http.Request, xOnly bool) json.RawMessage {
	m := make(map[string]string, len(r.Header)+1)
	if !xOnly && r.Host != "" {
		m["host"] = r.Host
	}
	for name, values := range r.Header {
		name = strings.ToLower(name)
		if xOnly && !strings.HasPrefix(name, "x-") {
			continue
		}
		sep := ", "
		if name == "cookie" {
			sep = "; "
		}
		if prev, ok := m[name]; ok {
			values = append([]string{prev}, values...)
		}
		m[name] = strings.Join(values, sep)
	}
	b, err := json.Marshal(m)
	if err != nil {
		// A map of strings always encodes; this keeps the policies' view
		// well-formed all the same.
		return json.RawMessage("{}")
	}
	return b
}
