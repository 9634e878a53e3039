package parse

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// keysByDecoding is what ObjectKeys stands for: the names of a decoded
// map, sorted.
func keysByDecoding(body []byte) ([]string, bool) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, false
	}
	var keys []string
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys, true
}

var ObjectKeysCases = []struct {
	name string
	body string
	keys []string
	ok   bool
}{
	{"the P2P board's arguments", `{"p_action":null,"p_currency":null,"p_search":null,"p_sort":"newest","p_limit":20}`,
		[]string{"p_action", "p_currency", "p_limit", "p_search", "p_sort"}, true},
	{"empty", `{}`, nil, true},
	{"spaces everywhere", " {\t\"b\" :\n1 , \"a\"\r: [ 1 , { \"x\" : \"}\" } ] }", []string{"a", "b"}, true},
	{"nested objects' names are not arguments", `{"a":{"b":{"c":1}},"d":[{"e":2}]}`, []string{"a", "d"}, true},
	{"brackets and quotes inside strings", `{"a":"]}{[\"","b":"\\"}`, []string{"a", "b"}, true},
	{"a duplicate name counts once", `{"a":1,"a":2,"b":3}`, []string{"a", "b"}, true},
	{"escaped name", `{"\u0061b\n":1,"c\"d":2}`, []string{"ab\n", "c\"d"}, true},
	{"non-ASCII name", `{"jina_la_mtaa":1,"bei_ya_kodi_Ksh":2,"mahali":"Nairobi"}`, []string{"bei_ya_kodi_Ksh", "jina_la_mtaa", "mahali"}, true},
	{"literals and numbers", `{"t":true,"f":false,"n":null,"x":-1.5e3,"y":0}`, []string{"f", "n", "t", "x", "y"}, true},
	{"invalid: trailing comma", `{"a":1,}`, nil, false},
	{"invalid: unquoted name", `{a:1}`, nil, false},
	{"invalid: two values", `{"a":1} {"b":2}`, nil, false},
	{"invalid: unterminated", `{"a":"x`, nil, false},
}

func TestObjectKeys(t *testing.T) {
	for _, tt := range ObjectKeysCases {
		t.Run(tt.name, func(t *testing.T) {
			body := bytes.TrimSpace([]byte(tt.body))
			keys, ok := ObjectKeys(body)
			if ok != tt.ok || !slices.Equal(keys, tt.keys) {
				t.Fatalf("ObjectKeys(%s) = %q, %v; want %q, %v", tt.body, keys, ok, tt.keys, tt.ok)
			}
			wantKeys, wantOK := keysByDecoding(body)
			if ok != wantOK || !slices.Equal(keys, wantKeys) {
				t.Fatalf("ObjectKeys(%s) = %q, %v; decoding gives %q, %v", tt.body, keys, ok, wantKeys, wantOK)
			}
		})
	}
}

// TestObjectKeysOfNonObjects: a valid body that is not an object has no
// member names (decoding null into a map would succeed, which is why the
// payload's rows were checked for a nil map).
func TestObjectKeysOfNonObjects(t *testing.T) {
	for _, body := range []string{`null`, `[{"a":1}]`, `"{"`, `1`, ``} {
		if keys, ok := ObjectKeys([]byte(body)); ok {
			t.Errorf("ObjectKeys(%s) = %q, true; want false", body, keys)
		}
	}
}

// FuzzObjectKeys holds ObjectKeys to encoding/json's answer for any body
// that begins with '{', as its callers hand it one.
func FuzzObjectKeys(f *testing.F) {
	for _, tt := range ObjectKeysCases {
		f.Add([]byte(tt.body))
	}
	f.Add([]byte("{\"\xff\xfe\":1}"))
	f.Add([]byte(`{"\ud800":1,"\ud83d\ude00":2}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		body = bytes.TrimSpace(body)
		if len(body) == 0 || body[0] != '{' {
			return
		}
		keys, ok := ObjectKeys(body)
		wantKeys, wantOK := keysByDecoding(body)
		if ok != wantOK || !slices.Equal(keys, wantKeys) {
			t.Fatalf("ObjectKeys(%q) = %q, %v; decoding gives %q, %v", body, keys, ok, wantKeys, wantOK)
		}
	})
}

func BenchmarkObjectKeys(b *testing.B) {
	body := []byte(ObjectKeysCases[0].body)
	b.ReportAllocs()
	for range b.N {
		_, _ = ObjectKeys(body)
	}
}
