package parse

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"net/url"
	"slices"
	"sort"

	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
)

// Payload is a request body ready for the database: JSON (CSV and form
// bodies are converted), plus the keys its objects carry.
type Payload struct {
	// JSON is the body as JSON text.
	JSON []byte
	// IsObject reports a single object (else an array of objects).
	IsObject bool
	// Keys are the object keys, sorted (the columns written).
	Keys []string
	// Rows is the number of objects.
	Rows int
	// Object is the decoded single object, for PUT's primary-key check;
	// nil for arrays. (RPC bodies do not come here: plan.Call reads their
	// argument names with ObjectKeys.)
	Object map[string]json.RawMessage
}

var errInvalidJSON = pgrsterr.InvalidBody(400, "Empty or invalid json")

func keysOf(m map[string]json.RawMessage) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// ParsePayload decodes a write body of content type ct. anyKeys allows the
// objects of an array to have different keys (columns= was given).
func ParsePayload(body []byte, ct MediaType, anyKeys bool) (*Payload, error) {
	switch ct.Type {
	case MTCSV:
		return csvPayload(body)
	case MTURLEncoded:
		return formPayload(body)
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, errInvalidJSON
	}
	switch trimmed[0] {
	case '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &obj); err != nil || obj == nil {
			return nil, errInvalidJSON
		}
		return &Payload{JSON: trimmed, IsObject: true, Keys: keysOf(obj), Rows: 1, Object: obj}, nil
	case '[':
		var arr []json.RawMessage
		if err := json.Unmarshal(trimmed, &arr); err != nil {
			return nil, errInvalidJSON
		}
		p := &Payload{JSON: trimmed, Rows: len(arr)}
		for i, raw := range arr {
			// Only the row's names matter here: PostgreSQL reads the
			// values from the body itself.
			ks, ok := ObjectKeys(raw)
			if !ok {
				return nil, pgrsterr.InvalidBody(400, "All object keys must match")
			}
			if i == 0 {
				p.Keys = ks
			} else if !anyKeys && !slices.Equal(ks, p.Keys) {
				return nil, pgrsterr.InvalidBody(400, "All object keys must match")
			}
		}
		if len(arr) == 0 {
			p.JSON = []byte("[]")
		}
		return p, nil
	}
	if !json.Valid(trimmed) {
		return nil, errInvalidJSON
	}
	return nil, pgrsterr.InvalidBody(400, "All object keys must match")
}

func csvPayload(body []byte) (*Payload, error) {
	r := csv.NewReader(bytes.NewReader(body))
	recs, err := r.ReadAll()
	if err != nil || len(recs) == 0 {
		return nil, pgrsterr.InvalidBody(400, "Error in CSV payload")
	}
	header := recs[0]
	rows := make([]map[string]any, 0, len(recs)-1)
	for _, rec := range recs[1:] {
		if len(rec) != len(header) {
			return nil, pgrsterr.InvalidBody(400, "All lines must have same number of fields")
		}
		m := make(map[string]any, len(header))
		for i, h := range header {
			if rec[i] == "NULL" {
				m[h] = nil
			} else {
				m[h] = rec[i]
			}
		}
		rows = append(rows, m)
	}
	js, _ := json.Marshal(rows)
	keys := slices.Clone(header)
	sort.Strings(keys)
	return &Payload{JSON: js, Keys: keys, Rows: len(rows)}, nil
}

func formPayload(body []byte) (*Payload, error) {
	vals, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, pgrsterr.InvalidBody(400, "Error in form payload")
	}
	obj := map[string]json.RawMessage{}
	m := map[string]string{}
	for k, v := range vals {
		m[k] = v[len(v)-1]
		b, _ := json.Marshal(m[k])
		obj[k] = b
	}
	js, _ := json.Marshal(m)
	return &Payload{JSON: js, IsObject: true, Keys: keysOf(obj), Rows: 1, Object: obj}, nil
}
