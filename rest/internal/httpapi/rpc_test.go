package httpapi

import "testing"

// TestRPC covers function calls: argument passing, overloads, result
// shapes, filters on set-returning functions, and errors.
func TestRPC(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	rollback := "Prefer: tx=rollback"
	s.run(t, []expect{
		{name: "get scalar", target: "/rpc/add?a=1&b=2", status: 200, want: map[string]string{"Content-Type": "application/json; charset=utf-8", "Content-Range": "0-0/*", "Content-Location": ""}, body: `3`},
		{name: "post named args", method: "POST", target: "/rpc/add", payload: `{"a":1,"b":2}`, status: 200, body: `3`},
		{name: "overload by argument names", method: "POST", target: "/rpc/add", payload: `{"a":1,"b":2,"c":3}`, status: 200, body: `6`},
		{name: "default argument", target: "/rpc/greet", status: 200, body: `"hello world"`},
		{name: "given argument", target: "/rpc/greet?name=Ann", status: 200, body: `"hello Ann"`},
		{name: "post empty body", method: "POST", target: "/rpc/greet", status: 200, body: `"hello world"`},
		{name: "post null argument", method: "POST", target: "/rpc/greet", payload: `{"name":null}`, status: 200, body: `null`},
		{name: "no arguments", target: "/rpc/book_count", status: 200, body: `6`},
		{name: "head", method: "HEAD", target: "/rpc/book_count", status: 200, body: ""},
		{name: "setof filter order", target: "/rpc/books_by?author=1&select=id,title&order=id.desc", status: 200,
			body: `[{"id":2,"title":"Petals of Blood"},{"id":1,"title":"Weep Not, Child"}]`},
		{name: "setof filter", target: "/rpc/books_by?author=1&select=id&price=gt.13", status: 200, body: `[{"id":2}]`},
		{name: "setof post with filter", method: "POST", target: "/rpc/books_by?select=id&price=gt.13", payload: `{"author":1}`, status: 200, body: `[{"id":2}]`},
		{name: "setof count", target: "/rpc/books_by?author=1&select=id&limit=1&order=id", headers: []string{"Prefer: count=exact"}, status: 206,
			want: map[string]string{"Content-Range": "0-0/2"}, body: `[{"id":1}]`},
		{name: "setof embeds", target: "/rpc/books_by?author=2&select=id,genres(name)&order=id&genres.order=name", status: 200,
			body: `[{"id":3,"genres":[{"name":"Fiction"},{"name":"History"}]},{"id":4,"genres":[]}]`},
		{name: "returns table", target: "/rpc/author_stats?order=books.desc,author_id", status: 200,
			body: `[{"author_id":1,"books":2},{"author_id":2,"books":2},{"author_id":3,"books":1}]`},
		{name: "returns table filtered", target: "/rpc/author_stats?books=eq.1", status: 200, body: `[{"author_id":3,"books":1}]`},
		{name: "single composite", target: "/rpc/first_book?select=id,title", status: 200, body: `{"id":1,"title":"Weep Not, Child"}`},
		{name: "setof scalar", target: "/rpc/tag_list", status: 200, body: `["classic","family","kenya","nigeria","politics"]`},
		{name: "single unnamed jsonb", method: "POST", target: "/rpc/echo", payload: `{"a":[1,2]}`, status: 200, body: `{"a":[1,2]}`},
		{name: "single unnamed jsonb array", method: "POST", target: "/rpc/echo", payload: `[1,2]`, status: 200, body: `[1,2]`},
		{name: "params single object", method: "POST", target: "/rpc/echo_args", payload: `{"x":1,"y":"z"}`, headers: []string{"Prefer: params=single-object"}, status: 200,
			want: map[string]string{"Preference-Applied": "params=single-object"}, body: `{"x":1,"y":"z"}`},
		{name: "variadic get", target: "/rpc/sum_all?nums=1&nums=2&nums=3", status: 200, body: `6`},
		{name: "variadic post", method: "POST", target: "/rpc/sum_all", payload: `{"nums":[1,2,3]}`, status: 200, body: `6`},
		{name: "void", method: "POST", target: "/rpc/noop", status: 204, body: ""},
		{name: "single object of set", target: "/rpc/books_by?author=3&select=id", headers: []string{objAccept}, status: 200, body: `{"id":5}`},
		{name: "single object of empty set", target: "/rpc/books_by?author=4&select=id", headers: []string{objAccept}, status: 406, body: `~"code":"PGRST116"`},
		{name: "volatile composite", as: service, method: "POST", target: "/rpc/new_author", payload: `{"id":10,"name":"Grace Ogot"}`, headers: []string{rollback}, status: 200,
			body: `{"id":10,"name":"Grace Ogot","country":null,"born":null,"profile":{}}`},
		{name: "rls inside function", as: u1, target: "/rpc/my_reviews?select=id", status: 200, body: `[{"id":1},{"id":3}]`},
		{name: "rls inside function anon", target: "/rpc/my_reviews?select=id", status: 200, body: `[]`},

		{name: "raise", method: "POST", target: "/rpc/raise_error", status: 400, body: `{"code":"P0001","message":"boom","details":"it broke","hint":"try again"}`},
		{name: "raise unique", method: "POST", target: "/rpc/raise_unique", status: 409, body: `~"code":"23505"`},
		{name: "raise PT status", method: "POST", target: "/rpc/raise_payment", status: 402, body: `~"message":"Payment Required"`},
		{name: "raise PGRST", method: "POST", target: "/rpc/raise_pgrst", status: 418, want: map[string]string{"X-Teapot": "yes"},
			body: `{"code":"123","message":"Custom","details":"d","hint":"h"}`},
		{name: "response GUCs", target: "/rpc/set_response", status: 202, want: map[string]string{"X-Custom": "yes", "Cache-Control": "no-store"}, body: `"accepted"`},
		{name: "write in GET", target: "/rpc/write_in_get", status: 405, body: `~"code":"25006"`},
		{name: "missing argument", method: "POST", target: "/rpc/add", payload: `{"a":1}`, status: 404,
			body: `{"code":"PGRST202","message":"Could not find the function library.add(a) in the schema cache","details":"Searched for the function library.add with parameter a or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.","hint":"Perhaps you meant to call the function library.add(a, b)"}`},
		{name: "misspelt function", target: "/rpc/addd", status: 404,
			body: `{"code":"PGRST202","message":"Could not find the function library.addd without parameters in the schema cache","details":"Searched for the function library.addd without parameters, but no matches were found in the schema cache.","hint":"Perhaps you meant to call the function library.add"}`},
		{name: "ambiguous overload", method: "POST", target: "/rpc/ambiguous", payload: `{"x":1}`, status: 300,
			body: `{"code":"PGRST203","message":"Could not choose the best candidate function between: library.ambiguous(x => integer), library.ambiguous(x => text)","details":null,"hint":"Try renaming the parameters or the function itself in the database so function overloading can be resolved"}`},
		{name: "put", method: "PUT", target: "/rpc/add", status: 405, body: `{"code":"PGRST101","message":"Cannot use the PUT method on RPC","details":null,"hint":null}`},
		{name: "invalid json", method: "POST", target: "/rpc/add", payload: `{"a":`, status: 400, body: `~"code":"PGRST102"`},
		{name: "max-affected on scalar", method: "POST", target: "/rpc/add", payload: `{"a":1,"b":1}`, headers: []string{"Prefer: handling=strict, max-affected=1"}, status: 400, body: `~"code":"PGRST128"`},
		{name: "max-affected on set", target: "/rpc/books_by?author=1", headers: []string{"Prefer: handling=strict, max-affected=1"}, status: 400, body: `~"The query affects 2 rows"`},
		{name: "options", method: "OPTIONS", target: "/rpc/add", status: 200, want: map[string]string{"Allow": "OPTIONS,GET,HEAD,POST"}},
	})
}
