package httpapi

import "testing"

const (
	rep   = "Prefer: return=representation"
	csvCT = "Content-Type: text/csv"
)

// TestWrites covers inserts, bulk inserts, columns=, missing=default,
// updates, deletes and their Prefer options, in order on one database.
func TestWrites(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	s.seq(t, []expect{
		{name: "insert minimal", as: service, method: "POST", target: "/genres", payload: `{"id":10,"name":"Poetry"}`, status: 201,
			want: map[string]string{"Content-Range": "*/*", "Location": "", "Content-Type": ""}, body: ""},
		{name: "insert representation", as: service, method: "POST", target: "/genres", payload: `{"id":11,"name":"Drama"}`, headers: []string{rep}, status: 201,
			want: map[string]string{"Preference-Applied": "return=representation"}, body: `[{"id":11,"name":"Drama"}]`},
		{name: "insert representation select", as: service, method: "POST", target: "/books?select=id,title,authors!books_author_id_fkey(name)", payload: `{"title":"Devil on the Cross","author_id":1}`,
			headers: []string{rep}, status: 201, body: `[{"id":101,"title":"Devil on the Cross","authors":{"name":"` + ngugi + `"}}]`},
		{name: "insert headers-only", as: service, method: "POST", target: "/genres", payload: `{"id":12,"name":"Essays and Letters"}`, headers: []string{"Prefer: return=headers-only"}, status: 201,
			want: map[string]string{"Location": "/genres?id=eq.12"}, body: ""},
		{name: "insert count", as: service, method: "POST", target: "/genres", payload: `[{"id":13,"name":"A"},{"id":14,"name":"B"}]`, headers: []string{"Prefer: count=exact"}, status: 201,
			want: map[string]string{"Content-Range": "*/2"}},
		{name: "bulk with columns", as: service, method: "POST", target: `/authors?columns=%22id%22,%22name%22,%22country%22`, payload: `[{"id":20,"name":"A","extra":1},{"id":21,"name":"B","country":"Kenya"}]`, status: 201},
		{name: "bulk with columns checked", target: "/authors?select=id,country&id=in.(20,21)&order=id", status: 200, body: `[{"id":20,"country":null},{"id":21,"country":"Kenya"}]`},
		{name: "keys must match", as: service, method: "POST", target: "/authors", payload: `[{"id":22,"name":"A"},{"id":23}]`, status: 400,
			body: `{"code":"PGRST102","message":"All object keys must match","details":null,"hint":null}`},
		{name: "missing default", as: service, method: "POST", target: "/books?columns=title,tags,in_print&select=title,tags,in_print", payload: `[{"title":"Matigari"}]`,
			headers: []string{"Prefer: missing=default, return=representation"}, status: 201,
			want: map[string]string{"Preference-Applied": "missing=default, return=representation"}, body: `[{"title":"Matigari","tags":[],"in_print":true}]`},
		{name: "missing null", as: service, method: "POST", target: "/books?columns=title,tags", payload: `[{"title":"Matigari"}]`, status: 400, body: `~"code":"23502"`},
		{name: "unknown column", as: service, method: "POST", target: "/genres", payload: `{"id":15,"nope":1}`, status: 400,
			body: `{"code":"PGRST204","message":"Could not find the 'nope' column of 'genres' in the schema cache","details":null,"hint":null}`},
		{name: "unknown columns param", as: service, method: "POST", target: "/genres?columns=id,nope", payload: `{"id":15}`, status: 400, body: `~"code":"PGRST204"`},
		{name: "invalid json", as: service, method: "POST", target: "/genres", payload: `{"id":`, status: 400,
			body: `{"code":"PGRST102","message":"Empty or invalid json","details":null,"hint":null}`},
		{name: "unique violation", as: service, method: "POST", target: "/genres", payload: `{"id":1,"name":"Dup"}`, status: 409, body: `~"code":"23505"`},
		{name: "foreign key violation", as: service, method: "POST", target: "/book_genres", payload: `{"book_id":999,"genre_id":1}`, status: 409, body: `~"code":"23503"`},
		{name: "check violation", as: service, method: "POST", target: "/reviews", payload: `{"book_id":1,"user_id":"` + user1 + `","rating":9}`, status: 400, body: `~"code":"23514"`},
		{name: "array and json values", as: service, method: "POST", target: "/books?select=tags,metadata,price", payload: `{"title":"Wizard of the Crow","tags":["satire","kenya"],"metadata":{"pages":[1,2]},"price":"20.5"}`,
			headers: []string{rep}, status: 201, body: `[{"tags":["satire","kenya"],"metadata":{"pages":[1,2]},"price":20.50}]`},
		{name: "csv insert", as: service, method: "POST", target: "/authors", payload: "id,name,country\n30,Ann,NULL\n31,Bob,Kenya", headers: []string{csvCT}, status: 201},
		{name: "csv insert checked", target: "/authors?select=id,country&id=in.(30,31)&order=id", status: 200, body: `[{"id":30,"country":null},{"id":31,"country":"Kenya"}]`},
		{name: "form insert", as: service, method: "POST", target: "/genres", payload: "id=16&name=Crime+fiction", headers: []string{"Content-Type: application/x-www-form-urlencoded"}, status: 201},
		{name: "form insert checked", target: "/genres?id=eq.16", status: 200, body: `[{"id":16,"name":"Crime fiction"}]`},

		// Upserts.
		{name: "merge on unique key updates", as: service, method: "POST", target: "/settings?on_conflict=key&select=key,value", payload: `{"key":"theme","value":"light"}`,
			headers: []string{"Prefer: resolution=merge-duplicates, return=representation"}, status: 200,
			want: map[string]string{"Preference-Applied": "resolution=merge-duplicates, return=representation"}, body: `[{"key":"theme","value":"light"}]`},
		{name: "merge on unique key inserts", as: service, method: "POST", target: "/settings?on_conflict=key&select=key,value", payload: `{"key":"lang","value":"sw"}`,
			headers: []string{"Prefer: resolution=merge-duplicates, return=representation"}, status: 201, body: `[{"key":"lang","value":"sw"}]`},
		{name: "merge on primary key", as: service, method: "POST", target: "/genres", payload: `[{"id":1,"name":"Fiction!"},{"id":17,"name":"New"}]`,
			headers: []string{"Prefer: resolution=merge-duplicates, return=representation"}, status: 201, body: `[{"id":1,"name":"Fiction!"},{"id":17,"name":"New"}]`},
		{name: "ignore duplicates", as: service, method: "POST", target: "/settings?on_conflict=key", payload: `{"key":"theme","value":"ignored"}`,
			headers: []string{"Prefer: resolution=ignore-duplicates, return=representation"}, status: 201, body: `[]`},
		{name: "ignored kept", target: "/settings?select=value&key=eq.theme", status: 200, body: `[{"value":"light"}]`},

		// Updates.
		{name: "update minimal", as: service, method: "PATCH", target: "/books?id=eq.1", payload: `{"price":13}`, status: 204, want: map[string]string{"Content-Range": "0-0/*"}, body: ""},
		{name: "update representation", as: service, method: "PATCH", target: "/books?id=eq.1&select=id,price", payload: `{"price":14}`, headers: []string{rep}, status: 200, body: `[{"id":1,"price":14}]`},
		{name: "update count", as: service, method: "PATCH", target: "/books?author_id=eq.2", payload: `{"in_print":true}`, headers: []string{"Prefer: count=exact"}, status: 204,
			want: map[string]string{"Content-Range": "0-1/2"}},
		{name: "update nothing matched", as: service, method: "PATCH", target: "/books?id=eq.999", payload: `{"price":1}`, headers: []string{"Prefer: count=exact"}, status: 204,
			want: map[string]string{"Content-Range": "*/0"}},
		{name: "update with logic", as: service, method: "PATCH", target: "/books?or=(id.eq.2,id.eq.3)&select=id", payload: `{"pages":300}`, headers: []string{rep}, status: 200, body: `[{"id":2},{"id":3}]`},
		{name: "update without filter", as: service, method: "PATCH", target: "/books", payload: `{"price":1}`, status: 400,
			body: `{"code":"21000","message":"UPDATE requires a WHERE clause","details":null,"hint":null}`},
		{name: "max-affected exceeded", as: service, method: "PATCH", target: "/books?author_id=eq.1", payload: `{"price":99}`, headers: []string{"Prefer: handling=strict, max-affected=1"}, status: 400,
			body: `{"code":"PGRST124","message":"Query result exceeds max-affected preference constraint","details":"The query affects 3 rows","hint":null}`},
		{name: "max-affected rolled back", target: "/books?select=price&id=eq.2", status: 200, body: `[{"price":15.00}]`},
		{name: "max-affected within", as: service, method: "PATCH", target: "/books?id=eq.2", payload: `{"price":16}`, headers: []string{"Prefer: handling=strict, max-affected=1"}, status: 204,
			want: map[string]string{"Preference-Applied": "handling=strict, max-affected=1"}},
		{name: "single object update", as: service, method: "PATCH", target: "/books?id=eq.3&select=id", payload: `{"pages":210}`, headers: []string{rep, objAccept}, status: 200, body: `{"id":3}`},
		{name: "single object update of many", as: service, method: "PATCH", target: "/books?author_id=eq.2", payload: `{"pages":1}`, headers: []string{rep, objAccept}, status: 406, body: `~"The result contains 2 rows"`},
		{name: "single object rolled back", target: "/books?select=pages&id=eq.4", status: 200, body: `[{"pages":230}]`},

		// Deletes.
		{name: "delete", as: service, method: "DELETE", target: "/book_genres?book_id=eq.5", headers: []string{"Prefer: count=exact"}, status: 204, want: map[string]string{"Content-Range": "*/1"}},
		{name: "delete representation", as: service, method: "DELETE", target: "/genres?id=in.(13,14)&order=id", headers: []string{rep}, status: 200, body: `[{"id":13,"name":"A"},{"id":14,"name":"B"}]`},
		{name: "delete without filter", as: service, method: "DELETE", target: "/genres", status: 400, body: `~"DELETE requires a WHERE clause"`},

		// Transactions.
		{name: "rollback preference", as: service, method: "POST", target: "/genres", payload: `{"id":40,"name":"Gone"}`, headers: []string{"Prefer: tx=rollback, return=representation"}, status: 201,
			want: map[string]string{"Preference-Applied": "return=representation, tx=rollback"}, body: `[{"id":40,"name":"Gone"}]`},
		{name: "rolled back", target: "/genres?id=eq.40", status: 200, body: `[]`},

		// PUT.
		{name: "put creates", as: service, method: "PUT", target: "/genres?id=eq.50", payload: `{"id":50,"name":"Sci-Fi"}`, status: 204, body: ""},
		{name: "put replaces", as: service, method: "PUT", target: "/genres?id=eq.50", payload: `{"id":50,"name":"Science Fiction"}`, headers: []string{rep}, status: 200, body: `[{"id":50,"name":"Science Fiction"}]`},
		{name: "put inserts with representation", as: service, method: "PUT", target: "/genres?id=eq.51", payload: `{"id":51,"name":"Fantasy"}`, headers: []string{rep}, status: 201, body: `[{"id":51,"name":"Fantasy"}]`},
		{name: "put key mismatch", as: service, method: "PUT", target: "/genres?id=eq.52", payload: `{"id":53,"name":"X"}`, status: 400,
			body: `{"code":"PGRST115","message":"Payload values do not match URL in primary key column(s)","details":null,"hint":null}`},
		{name: "put without key filter", as: service, method: "PUT", target: "/genres?name=eq.X", payload: `{"id":53,"name":"X"}`, status: 405, body: `~"code":"PGRST105"`},
		{name: "put with limit", as: service, method: "PUT", target: "/genres?id=eq.53&limit=1", payload: `{"id":53,"name":"X"}`, status: 400, body: `~"code":"PGRST114"`},
	})
}

// TestWritesRLS is the RLS matrix of library.reviews: policies × operations
// × roles.
func TestWritesRLS(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	s.seq(t, []expect{
		{name: "user inserts own", as: u1, method: "POST", target: "/reviews?select=book_id,user_id,rating", payload: `{"book_id":2,"rating":5}`, headers: []string{rep}, status: 201,
			body: `[{"book_id":2,"user_id":"` + user1 + `","rating":5}]`},
		{name: "user inserts minimal", as: u2, method: "POST", target: "/reviews", payload: `{"book_id":2,"rating":3,"private":true}`, status: 201},
		{name: "user cannot insert for another", as: u1, method: "POST", target: "/reviews", payload: `{"book_id":2,"user_id":"` + user2 + `","rating":1}`, status: 403,
			body: `{"code":"42501","message":"new row violates row-level security policy for table \"reviews\"","details":null,"hint":null}`},
		{name: "anon cannot insert", as: anon, method: "POST", target: "/reviews", payload: `{"book_id":2,"rating":1}`, status: 401, body: `~"code":"42501"`},
		{name: "anon key cannot insert", as: anonJWT, method: "POST", target: "/reviews", payload: `{"book_id":2,"rating":1}`, status: 401, body: `~"code":"42501"`},
		{name: "other's review untouched", as: u2, method: "PATCH", target: "/reviews?id=eq.1", payload: `{"rating":1}`, headers: []string{"Prefer: count=exact"}, status: 204,
			want: map[string]string{"Content-Range": "*/0"}},
		{name: "owner updates", as: u1, method: "PATCH", target: "/reviews?id=eq.1&select=rating", payload: `{"rating":4}`, headers: []string{rep}, status: 200, body: `[{"rating":4}]`},
		{name: "owner cannot give it away", as: u1, method: "PATCH", target: "/reviews?id=eq.1", payload: `{"user_id":"` + user2 + `"}`, status: 403, body: `~"code":"42501"`},
		{name: "other cannot delete", as: u2, method: "DELETE", target: "/reviews?id=eq.3", headers: []string{"Prefer: count=exact"}, status: 204, want: map[string]string{"Content-Range": "*/0"}},
		{name: "owner deletes", as: u1, method: "DELETE", target: "/reviews?id=eq.3", headers: []string{"Prefer: count=exact"}, status: 204, want: map[string]string{"Content-Range": "*/1"}},
		{name: "anon deletes nothing", as: anon, method: "DELETE", target: "/reviews?id=eq.2", headers: []string{"Prefer: count=exact"}, status: 204, want: map[string]string{"Content-Range": "*/0"}},
		{name: "service deletes anything", as: service, method: "DELETE", target: "/reviews?id=eq.4", headers: []string{"Prefer: count=exact"}, status: 204, want: map[string]string{"Content-Range": "*/1"}},
		{name: "final state as service", as: service, target: "/reviews?select=id,rating&order=id", status: 200, body: `[{"id":1,"rating":4},{"id":2,"rating":4},{"id":101,"rating":5},{"id":102,"rating":3}]`},
		{name: "user two sees own private", as: u2, target: "/reviews?select=id&order=id", status: 200, body: `[{"id":1},{"id":2},{"id":101},{"id":102}]`},
		{name: "user one does not", as: u1, target: "/reviews?select=id&order=id", status: 200, body: `[{"id":1},{"id":2},{"id":101}]`},
	})
}
