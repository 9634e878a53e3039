package sqlgen_test

import (
	"encoding/json"
	"testing"

	"github.com/kejanest/kejanest/rest/pgrst/internal/schematest"
	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
)

// The round-3 fixture (compat/fixtures/rest-round3.sql): computed
// relationships and computed fields on the rows of writes and calls.
var round3Schemas = []string{"round3"}

var round3Goldens = []golden{
	{name: "computed_rel_to_many", target: "/clients?select=id,computed_projects(id,name)&computed_projects.id=gt.1&computed_projects.order=id.desc&computed_projects.limit=1&order=id", rows: 3},
	{name: "computed_rel_to_one", target: "/projects?select=id,computed_client(name),first_task(name)&order=id", rows: 5},
	{name: "computed_rel_inner_count", target: "/clients?select=id,computed_projects!inner(id)&computed_projects.name=like.Windows*", headers: hdr("Prefer", "count=exact"), rows: 1},
	{name: "computed_rel_override", target: "/projects?select=id,clients(id)&id=eq.1", rows: 1},
	{name: "computed_rel_nested", target: "/clients?select=id,computed_projects(id,computed_client(id))&id=eq.2", rows: 1},
	{name: "computed_field_insert", method: "POST", target: "/projects?select=id,label,computed_client(name)", body: `{"id":9,"name":"New","client_id":1}`,
		headers: hdr("Prefer", "return=representation"), rows: 1},
	{name: "computed_field_update", method: "PATCH", target: "/projects?id=eq.1&select=label", body: `{"name":"W7"}`,
		headers: hdr("Prefer", "return=representation"), rows: 1},
	{name: "computed_field_call", target: "/rpc/client_projects?cid=2&select=id,label,computed_client(name)", rows: 2},
}

func setupRound3(t *testing.T) *fixture {
	t.Helper()
	pool, cache := schematest.Load(t, "rest-round3.sql", round3Schemas)
	return &fixture{pool: pool, cache: cache}
}

// TestRound3Golden pins and runs the SQL of computed relationships and of
// computed fields read from writes and calls, and checks the bodies.
func TestRound3Golden(t *testing.T) {
	t.Parallel()
	f := setupRound3(t)
	// A function returning one composite (not setof) yields a row of
	// nulls when its query finds nothing, so project 5's computed_client is
	// {"name":null}, as in PostgREST (FROM f(row) either way).
	bodies := map[string]string{
		"computed_rel_to_many":     `[{"id":1,"computed_projects":[{"id":2,"name":"Windows 10"}]},{"id":2,"computed_projects":[{"id":4,"name":"OSX"}]},{"id":3,"computed_projects":[]}]`,
		"computed_rel_to_one":      `[{"id":1,"computed_client":{"name":"Microsoft"},"first_task":{"name":"Design w7"}},{"id":2,"computed_client":{"name":"Microsoft"},"first_task":{"name":"Design w10"}},{"id":3,"computed_client":{"name":"Apple"},"first_task":{"name":"Design IOS"}},{"id":4,"computed_client":{"name":"Apple"},"first_task":{"name":"Design OSX"}},{"id":5,"computed_client":{"name":null},"first_task":null}]`,
		"computed_rel_inner_count": `[{"id":1,"computed_projects":[{"id":1},{"id":2}]}]`,
		// clients(projects) is declared rows 1: to-one.
		"computed_rel_override": `[{"id":1,"clients":{"id":2}}]`,
		"computed_rel_nested":   `[{"id":2,"computed_projects":[{"id":3,"computed_client":{"id":2}},{"id":4,"computed_client":{"id":2}}]}]`,
		"computed_field_insert": `[{"id":9,"label":"New #9","computed_client":{"name":"Microsoft"}}]`,
		"computed_field_update": `[{"label":"W7 #1"}]`,
		"computed_field_call":   `[{"id":3,"label":"IOS #3","computed_client":{"name":"Apple"}},{"id":4,"label":"OSX #4","computed_client":{"name":"Apple"}}]`,
	}
	for _, g := range round3Goldens {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			body := runGolden(t, f, g, round3Schemas)
			if want := bodies[g.name]; !jsonEqual(t, body, want) {
				t.Errorf("body = %s, want %s", body, want)
			}
		})
	}
}

func jsonEqual(t *testing.T, got []byte, want string) bool {
	t.Helper()
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatalf("body %q: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &b); err != nil {
		t.Fatalf("want %q: %v", want, err)
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestRound3EmbedErrors checks PostgREST's answers to ambiguous and
// unresolvable embeddings, and that hints resolve them.
func TestRound3EmbedErrors(t *testing.T) {
	t.Parallel()
	f := setupRound3(t)
	cases := []struct {
		name, target, want string
	}{
		{"ambiguous", "/messages?select=users(name)",
			`{"code":"PGRST201","details":[{"cardinality":"many-to-one","embedding":"messages with users","relationship":"messages_recipient_fkey using messages(recipient) and users(id)"},{"cardinality":"many-to-one","embedding":"messages with users","relationship":"messages_sender_fkey using messages(sender) and users(id)"}],"hint":"Try changing 'users' to one of the following: 'users!messages_recipient_fkey', 'users!messages_sender_fkey'. Find the desired relationship in the 'details' key.","message":"Could not embed because more than one relationship was found for 'messages' and 'users'"}`},
		{"ambiguous reverse", "/users?select=messages(id)",
			`{"code":"PGRST201","details":[{"cardinality":"one-to-many","embedding":"users with messages","relationship":"messages_recipient_fkey using users(id) and messages(recipient)"},{"cardinality":"one-to-many","embedding":"users with messages","relationship":"messages_sender_fkey using users(id) and messages(sender)"}],"hint":"Try changing 'messages' to one of the following: 'messages!messages_recipient_fkey', 'messages!messages_sender_fkey'. Find the desired relationship in the 'details' key.","message":"Could not embed because more than one relationship was found for 'users' and 'messages'"}`},
		{"bad hint", "/messages?select=users!nope(name)",
			`{"code":"PGRST200","details":"Searched for a foreign key relationship between 'messages' and 'users' using the hint 'nope' in the schema 'round3', but no matches were found.","hint":null,"message":"Could not find a relationship between 'messages' and 'users' in the schema cache"}`},
		{"computed misspelt", "/clients?select=computed_project(id)",
			`{"code":"PGRST200","details":"Searched for a foreign key relationship between 'clients' and 'computed_project' in the schema 'round3', but no matches were found.","hint":"Perhaps you meant 'projects' instead of 'computed_project'.","message":"Could not find a relationship between 'clients' and 'computed_project' in the schema cache"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, _, err := buildIn(f.cache, golden{target: c.target}, round3Schemas)
			var pe *pgrsterr.Error
			if err == nil {
				t.Fatal("no error")
			}
			pe, ok := err.(*pgrsterr.Error)
			if !ok {
				t.Fatalf("error %v is not a PostgREST error", err)
			}
			got, _ := json.Marshal(pe)
			if string(got) != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
	// Hints by constraint and by column pick one relationship each.
	for _, target := range []string{
		"/messages?select=id,from:users!messages_sender_fkey(name),to:users!recipient(name)&id=eq.1",
		"/messages?select=id,from:users!sender(name),to:users!messages_recipient_fkey!inner(name)&id=eq.1",
	} {
		if _, _, _, err := buildIn(f.cache, golden{target: target}, round3Schemas); err != nil {
			t.Errorf("%s: %v", target, err)
		}
	}
}
