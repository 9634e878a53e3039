package objects

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kejanest/kejanest/storage/internal/db"
)

// TestCopyMetadata: copyMetadata (default) carries both metadata columns;
// without it upstream's overrides apply and x-metadata replaces the user
// metadata.
func TestCopyMetadata(t *testing.T) {
	t.Parallel()
	src := db.Object{Metadata: json.RawMessage(`{"size":5,"mimetype":"text/plain","cacheControl":"max-age=60"}`), UserMetadata: json.RawMessage(`{"k":"v"}`)}
	s := func(v string) *string { return &v }
	for _, tc := range []struct {
		name     string
		t        Transfer
		meta     map[string]any
		userMeta string
	}{
		{"keep", Transfer{KeepMetadata: true}, map[string]any{"size": 5.0, "mimetype": "text/plain", "cacheControl": "max-age=60"}, `{"k":"v"}`},
		{"override cache", Transfer{CacheControl: s("max-age=30")}, map[string]any{"size": 5.0, "mimetype": "text/plain", "cacheControl": "max-age=30"}, ``},
		{"override both, new user metadata", Transfer{CacheControl: s("no-cache"), Mimetype: s("text/markdown"), UserMetadata: json.RawMessage(`{"a":1}`)},
			map[string]any{"size": 5.0, "mimetype": "text/markdown", "cacheControl": "no-cache"}, `{"a":1}`},
	} {
		meta, user, err := tc.t.copyMetadata(src)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got map[string]any
		if err := json.Unmarshal(meta, &got); err != nil || !reflect.DeepEqual(got, tc.meta) {
			t.Errorf("%s: metadata %s, want %v", tc.name, meta, tc.meta)
		}
		if string(user) != tc.userMeta {
			t.Errorf("%s: user metadata %s, want %s", tc.name, user, tc.userMeta)
		}
	}
}
