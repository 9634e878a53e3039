package schemacache_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/platform/pgtest"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func fixture() string { return filepath.Join(pgtest.RepoRoot(), "compat", "fixtures", "rest.sql") }

func load(t *testing.T) (*schemacache.Holder, *pgtest.DB, *pgxpool.Pool) {
	t.Helper()
	db := pgtest.New(t, pgtest.Options{Fixtures: []string{fixture()}})
	pool, err := pgxpool.New(context.Background(), db.URLAs("authenticator"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	h := schemacache.NewHolder(pool, []string{"library", "public"}, nil)
	if err := h.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	return h, db, pool
}

func lib(name string) schemacache.QI { return schemacache.QI{Schema: "library", Name: name} }

func rels(c *schemacache.Cache, from string) []string {
	var out []string
	for _, r := range c.Relationships(lib(from)) {
		s := fmt.Sprintf("%s %s %s", r.Cardinality, r.ForeignTable.Name, r.Constraint)
		if r.Junction != nil {
			s = fmt.Sprintf("%s %s via %s", r.Cardinality, r.ForeignTable.Name, r.Junction.Table.Name)
		}
		out = append(out, s)
	}
	return out
}

func TestLoad(t *testing.T) {
	t.Parallel()
	h, _, _ := load(t)
	c := h.Get()

	books := c.Table(lib("books"))
	if books == nil || books.Kind != 'r' || !slices.Equal(books.PK, []string{"id"}) || !books.Insertable {
		t.Fatalf("books = %+v", books)
	}
	for name, want := range map[string]string{"tags": "text[]", "metadata": "jsonb", "search": "tsvector", "price": "numeric(10,2)", "created_at": "timestamp with time zone"} {
		col := books.Column(name)
		if col == nil || col.Type != want {
			t.Errorf("books.%s = %+v, want type %s", name, col, want)
		}
	}
	if col := books.Column("search"); !col.IsTSVector() || !col.Generated {
		t.Errorf("search = %+v", col)
	}
	if col := books.Column("tags"); !col.IsArray || col.Default != "'{}'::text[]" || col.Nullable {
		t.Errorf("tags = %+v", col)
	}
	if col := books.Column("id"); !col.Identity {
		t.Errorf("id = %+v", col)
	}
	if a := c.Table(lib("authors")); a.Description != "Writers of books." || a.Column("name").Description != "Full name." {
		t.Errorf("comments = %q %q", a.Description, a.Column("name").Description)
	}
	if s := c.Table(lib("settings")); len(s.Uniques) != 1 || s.Uniques[0][0] != "key" {
		t.Errorf("settings uniques = %v", s.Uniques)
	}
	if s := c.Table(lib("settings")); s.HasChildren {
		t.Errorf("settings has no inheritance children")
	}
	view := c.Table(lib("book_view"))
	if view == nil || !view.IsView() || !slices.Equal(view.PK, []string{"id"}) {
		t.Fatalf("book_view = %+v", view)
	}

	tests := []struct {
		from string
		want []string
	}{
		{"books", []string{"many-to-one authors books_author_id_fkey", "many-to-one authors books_editor_id_fkey", "one-to-many book_genres book_genres_book_id_fkey",
			"many-to-many genres via book_genres", "many-to-one publishers books_publisher_id_fkey", "one-to-many reviews reviews_book_id_fkey"}},
		{"authors", []string{"one-to-many book_view books_author_id_fkey", "one-to-many books books_author_id_fkey", "one-to-many books books_editor_id_fkey"}},
		{"genres", []string{"one-to-many book_genres book_genres_genre_id_fkey", "many-to-many books via book_genres", "many-to-many book_view via book_genres"}},
		{"publishers", []string{"one-to-many books books_publisher_id_fkey", "one-to-one publisher_details publisher_details_publisher_id_fkey"}},
		{"publisher_details", []string{"one-to-one publishers publisher_details_publisher_id_fkey"}},
		{"employees", []string{"many-to-one employees employees_manager_id_fkey", "one-to-many employees employees_manager_id_fkey"}},
		// The view exposes books.id and books.author_id, so it has their
		// relationships.
		{"book_view", []string{"many-to-one authors books_author_id_fkey", "many-to-many genres via book_genres",
			"one-to-many book_genres book_genres_book_id_fkey", "one-to-many reviews reviews_book_id_fkey"}},
	}
	for _, tt := range tests {
		got := rels(c, tt.from)
		slices.Sort(got)
		want := slices.Clone(tt.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("relationships of %s:\n got %q\nwant %q", tt.from, got, want)
		}
	}

	add := c.Functions(lib("add"))
	if len(add) != 2 {
		t.Fatalf("add overloads = %d", len(add))
	}
	if f := add[0]; f.Volatility != 'i' || f.ReturnTypeName != "int4" || len(f.Params) < 2 || !f.Params[0].Required || f.Params[0].Type != "integer" {
		t.Errorf("add = %+v", f)
	}
	if f := c.Functions(lib("books_by"))[0]; !f.RetSet || !f.Composite || f.ReturnTable != lib("books") {
		t.Errorf("books_by = %+v", f)
	}
	if f := c.Functions(lib("author_stats"))[0]; !f.RetSet || !f.Composite || len(f.Columns) != 2 || f.Columns[1].Name != "books" {
		t.Errorf("author_stats = %+v", f)
	}
	if f := c.Functions(lib("greet"))[0]; f.Params[0].Required || f.Volatility != 's' {
		t.Errorf("greet = %+v", f)
	}
	if f := c.Functions(lib("sum_all"))[0]; !f.Params[0].Variadic {
		t.Errorf("sum_all = %+v", f)
	}
	if f := c.Functions(lib("echo"))[0]; f.Params[0].Name != "" || f.Params[0].BaseType != "jsonb" {
		t.Errorf("echo = %+v", f)
	}
	if f := c.Functions(lib("noop"))[0]; !f.ReturnsVoid() {
		t.Errorf("noop = %+v", f)
	}
	if f := c.Functions(lib("tag_list"))[0]; !f.ReturnsSetOfScalar() {
		t.Errorf("tag_list = %+v", f)
	}
	if got := c.RoleSettings("anon"); !slices.Contains(got, [2]string{"statement_timeout", "3s"}) {
		t.Errorf("anon settings = %v", got)
	}
	if s := schemacache.Suggest("autors", []string{"authors", "books", "genres"}); s != "authors" {
		t.Errorf("Suggest = %q", s)
	}
	if s := schemacache.Suggest("zzz", []string{"authors", "books"}); s != "" {
		t.Errorf("Suggest unrelated = %q", s)
	}
}

func TestReloadOnNotify(t *testing.T) {
	t.Parallel()
	h, db, pool := load(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := make(chan struct{}, 4)
	h.OnChange(func() { changed <- struct{}{} })
	next := h.Reloaded()
	go func() { _ = h.Listen(ctx, pool.Config().ConnConfig, 50*time.Millisecond) }()
	<-next // the load after LISTEN
	before := h.Get()

	conn, err := pgx.Connect(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	next = h.Reloaded()
	// DDL notifies through the event trigger.
	if _, err := conn.Exec(ctx, "create table library.late (id int primary key)"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-next:
	case <-time.After(10 * time.Second):
		t.Fatal("no reload after DDL")
	}
	after := h.Get()
	if after == before || after.Table(lib("late")) == nil || before.Table(lib("late")) != nil {
		t.Fatal("the new table is not in the swapped cache (or leaked into the old one)")
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("OnChange not called")
	}
	// An explicit NOTIFY reloads too.
	next = h.Reloaded()
	if _, err := conn.Exec(ctx, "notify pgrst, 'reload schema'"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-next:
	case <-time.After(10 * time.Second):
		t.Fatal("no reload after NOTIFY")
	}
}

func TestParseTargetList(t *testing.T) {
	t.Parallel()
	tree := `({QUERY :commandType 1 :rtable ({RTE :subquery {QUERY :targetList ({TARGETENTRY :resname inner :resorigtbl 9 :resorigcol 9 :resjunk false})}}) ` +
		`:targetList ({TARGETENTRY :expr {VAR :varno 1 :varattno 1} :resno 1 :resname id :ressortgroupref 0 :resorigtbl 16385 :resorigcol 1 :resjunk false} ` +
		`{TARGETENTRY :expr {FUNCEXPR :args ({CONST :constvalue 4 [ 1 0 0 0 ]})} :resno 2 :resname my\ col :resorigtbl 0 :resorigcol 0 :resjunk false}) :onConflict <>})`
	got := schemacache.ParseTargetList(tree)
	want := []schemacache.TargetEntry{{Name: "id", OrigTable: 16385, OrigCol: 1}, {Name: "my col"}}
	if !slices.Equal(got, want) {
		t.Errorf("ParseTargetList = %+v, want %+v", got, want)
	}
	if got := schemacache.ParseTargetList(strings.Repeat("(", 100)); len(got) != 0 {
		t.Errorf("garbage = %+v", got)
	}
}

// A table with inheritance children is marked, so a filter on its key is
// not taken to pin one row (a child may repeat the key); its child, and a
// partitioned table, are not.
func TestLoadMarksInheritance(t *testing.T) {
	t.Parallel()
	h, db, _ := load(t)
	ctx := context.Background()
	admin, err := pgxpool.New(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(ctx, `
		create table library.vehicles (id int primary key, plate text unique);
		create table library.lorries (axles int) inherits (library.vehicles);
		create table library.trips (id int, day date, primary key (id, day)) partition by range (day);
		create table library.trips_2026 partition of library.trips for values from ('2026-01-01') to ('2027-01-01');
		grant select on library.vehicles, library.lorries, library.trips to anon`); err != nil {
		t.Fatal(err)
	}
	if err := h.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	c := h.Get()
	pinnedID := func(col string) bool { return col == "id" }
	pinnedIDDay := func(col string) bool { return col == "id" || col == "day" }
	tests := []struct {
		table       string
		hasChildren bool
		pinned      func(string) bool
		keyPinned   bool
	}{
		{"vehicles", true, pinnedID, false},
		{"lorries", false, pinnedID, false}, // a child inherits no key
		{"trips", false, pinnedIDDay, true},
		{"books", false, pinnedID, true},
	}
	for _, tt := range tests {
		tb := c.Table(lib(tt.table))
		if tb == nil {
			t.Fatalf("%s not loaded", tt.table)
		}
		if tb.HasChildren != tt.hasChildren || tb.KeyPinned(tt.pinned) != tt.keyPinned {
			t.Errorf("%s: HasChildren %v, KeyPinned %v; want %v, %v", tt.table, tb.HasChildren, tb.KeyPinned(tt.pinned), tt.hasChildren, tt.keyPinned)
		}
	}
}
