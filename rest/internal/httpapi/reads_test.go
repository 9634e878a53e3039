package httpapi

import (
	"fmt"
	"testing"

	"github.com/kejanest/kejanest/rest/pgrst"
)

const (
	ngugi     = "Ngũgĩ wa Thiong'o"
	objAccept = "Accept: application/vnd.pgrst.object+json"
	ids       = "/books?select=id&order=id&"
)

// TestReads is PostgREST's read behaviour over the fixture, as anonymous.
// Every case only reads, so they share one database.
func TestReads(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	s.run(t, []expect{
		// Selection, pagination, counts.
		{name: "select order limit", target: "/authors?select=id,name&order=id&limit=2", status: 200,
			want: map[string]string{"Content-Range": "0-1/*", "Content-Type": "application/json; charset=utf-8",
				"Content-Location": "/authors?limit=2&order=id&select=id%2Cname"},
			body: `[{"id":1,"name":"` + ngugi + `"},{"id":2,"name":"Chinua Achebe"}]`},
		// The same read again (answered from the read cache, whichever runs
		// second).
		{name: "select order limit again", target: "/authors?select=id,name&order=id&limit=2", status: 200,
			want: map[string]string{"Content-Location": "/authors?limit=2&order=id&select=id%2Cname"}},
		{name: "content location merges repeated names", target: "/books?select=id&id=gte.1&id=lte.2&title=ilike.*e*", status: 200,
			want: map[string]string{"Content-Location": "/books?id=gte.1,lte.2&select=id&title=ilike.%2Ae%2A"}},
		{name: "content location without query", target: "/genres", status: 200, want: map[string]string{"Content-Location": "/genres"}},
		{name: "offset", target: "/authors?select=id&order=id&offset=1&limit=2", status: 200, want: map[string]string{"Content-Range": "1-2/*"}, body: `[{"id":2},{"id":3}]`},
		{name: "star", target: "/genres?order=id&limit=1", status: 200, body: `[{"id":1,"name":"Fiction"}]`},
		{name: "count exact partial", target: "/authors?select=id&order=id&limit=2", headers: []string{"Prefer: count=exact"}, status: 206,
			want: map[string]string{"Content-Range": "0-1/4", "Preference-Applied": "count=exact"}},
		{name: "count exact whole", target: "/authors?select=id", headers: []string{"Prefer: count=exact"}, status: 200, want: map[string]string{"Content-Range": "0-3/4"}},
		{name: "count planned", target: "/authors?select=id", headers: []string{"Prefer: count=planned"}, status: 200, want: map[string]string{"Content-Range": "0-3/4"}},
		{name: "count estimated below max rows", target: "/authors?select=id&limit=1", headers: []string{"Prefer: count=estimated"}, status: 206, want: map[string]string{"Content-Range": "0-0/4"}},
		{name: "count of nothing", target: "/authors?id=eq.99", headers: []string{"Prefer: count=exact"}, status: 200, want: map[string]string{"Content-Range": "*/0"}, body: `[]`},
		{name: "empty without count", target: "/authors?id=eq.99", status: 200, want: map[string]string{"Content-Range": "*/*"}, body: `[]`},
		{name: "range header", target: "/authors?select=id&order=id", headers: []string{"Range: 1-2", "Range-Unit: items"}, status: 200, want: map[string]string{"Content-Range": "1-2/*"}, body: `[{"id":2},{"id":3}]`},
		{name: "range header and limit", target: "/authors?select=id&order=id&limit=2", headers: []string{"Range: 1-2"}, status: 200, body: `[{"id":2}]`},
		{name: "range past the end", target: "/authors?select=id", headers: []string{"Range: 5-6", "Prefer: count=exact"}, status: 416,
			want: map[string]string{"Content-Range": "*/4"},
			body: `{"code":"PGRST103","message":"Requested range not satisfiable","details":"An offset of 5 was requested, but there are only 4 rows.","hint":null}`},
		{name: "range reversed", target: "/authors", headers: []string{"Range: 3-1"}, status: 416, body: `~PGRST103`},
		{name: "limit zero counts", target: "/authors?limit=0", headers: []string{"Prefer: count=exact"}, status: 206, want: map[string]string{"Content-Range": "*/4"}, body: `[]`},
		{name: "negative limit", target: "/authors?limit=-1", status: 416, body: `~Limit should be greater than or equal to zero.`},
		{name: "head with count", method: "HEAD", target: "/books?select=*&in_print=eq.true", headers: []string{"Prefer: count=exact"}, status: 200,
			want: map[string]string{"Content-Range": "0-4/5", "Content-Location": "/books?in_print=eq.true&select=%2A"}, body: ""},

		// Operators.
		{name: "eq", target: ids + "author_id=eq.1", status: 200, body: `[{"id":1},{"id":2}]`},
		{name: "neq", target: ids + "author_id=neq.1", status: 200, body: `[{"id":3},{"id":4},{"id":5}]`},
		{name: "gt", target: ids + "price=gt.11.50", status: 200, body: `[{"id":1},{"id":2}]`},
		{name: "gte", target: ids + "price=gte.11.50", status: 200, body: `[{"id":1},{"id":2},{"id":4}]`},
		{name: "lt", target: ids + "price=lt.10.99", status: 200, body: `[{"id":5}]`},
		{name: "lte", target: ids + "price=lte.10.99", status: 200, body: `[{"id":3},{"id":5}]`},
		{name: "like with star", target: ids + "title=like.*Fall*", status: 200, body: `[{"id":3}]`},
		{name: "like with percent", target: ids + "title=like.%25of%25", status: 200, body: `[{"id":2},{"id":4}]`},
		{name: "ilike", target: ids + "title=ilike.*THE*", status: 200, body: `[{"id":5}]`},
		{name: "match", target: ids + "title=match.^T", status: 200, body: `[{"id":3},{"id":5}]`},
		{name: "imatch", target: ids + "title=imatch.^t", status: 200, body: `[{"id":3},{"id":5}]`},
		{name: "in", target: ids + "id=in.(1,3,5)", status: 200, body: `[{"id":1},{"id":3},{"id":5}]`},
		{name: "in quoted", target: ids + "title=in.(%22Weep%20Not,%20Child%22,Arrow%20of%20God)", status: 200, body: `[{"id":1},{"id":4}]`},
		{name: "in empty", target: ids + "id=in.()", status: 200, body: `[]`},
		{name: "not in", target: ids + "id=not.in.(1,2,3,4)", status: 200, body: `[{"id":5},{"id":6}]`},
		{name: "is null", target: ids + "author_id=is.null", status: 200, body: `[{"id":6}]`},
		{name: "not is null", target: ids + "editor_id=not.is.null", status: 200, body: `[{"id":1},{"id":3}]`},
		{name: "is not_null", target: ids + "editor_id=is.not_null", status: 200, body: `[{"id":1},{"id":3}]`},
		{name: "is false", target: ids + "in_print=is.false", status: 200, body: `[{"id":4}]`},
		{name: "is true", target: ids + "in_print=is.TRUE", status: 200, body: `[{"id":1},{"id":2},{"id":3},{"id":5},{"id":6}]`},
		{name: "is unknown", target: ids + "in_print=is.unknown", status: 200, body: `[]`},
		{name: "isdistinct", target: ids + "editor_id=isdistinct.1", status: 200, body: `[{"id":1},{"id":2},{"id":4},{"id":5},{"id":6}]`},
		{name: "not", target: ids + "price=not.gt.11", status: 200, body: `[{"id":3},{"id":5}]`},
		{name: "cs array", target: ids + "tags=cs.{kenya}", status: 200, body: `[{"id":1},{"id":2},{"id":5}]`},
		{name: "cd array", target: ids + "tags=cd.{classic,kenya,nigeria}", status: 200, body: `[{"id":1},{"id":3},{"id":4},{"id":6}]`},
		{name: "ov array", target: ids + "tags=ov.{politics,family}", status: 200, body: `[{"id":2},{"id":5}]`},
		{name: "cs jsonb", target: ids + "metadata=cs.%7B%22edition%22:1%7D", status: 200, body: `[{"id":1}]`},
		{name: "sl range", target: "/events?select=id&order=id&seats=sl.[100,200)", status: 200, body: `[{"id":1},{"id":2}]`},
		{name: "sr range", target: "/events?select=id&order=id&seats=sr.[0,1)", status: 200, body: `[{"id":1},{"id":2}]`},
		{name: "nxr range", target: "/events?select=id&order=id&seats=nxr.[1,60)", status: 200, body: `[{"id":1}]`},
		{name: "nxl range", target: "/events?select=id&order=id&seats=nxl.[40,60)", status: 200, body: `[{"id":2}]`},
		{name: "adj range", target: "/events?select=id&order=id&seats=adj.[100,120)", status: 200, body: `[{"id":2}]`},
		{name: "ov range", target: "/events?select=id&during=ov.[2024-03-01%2011:00%2B00,2024-03-01%2013:00%2B00)", status: 200, body: `[{"id":1}]`},
		{name: "fts", target: ids + "search=fts.mau", status: 200, body: `[{"id":1}]`},
		{name: "plfts", target: ids + "search=plfts.coming%20colonialism", status: 200, body: `[{"id":3}]`},
		{name: "phfts with config", target: ids + "search=phfts(english).four%20generations", status: 200, body: `[{"id":5}]`},
		{name: "wfts", target: ids + "search=wfts(english).village%20-progress", status: 200, body: `[]`},
		{name: "fts on text column", target: ids + "summary=fts(english).okonkwo", status: 200, body: `[{"id":3}]`},
		{name: "like any", target: ids + "title=like(any).{Weep*,Arrow*}", status: 200, body: `[{"id":1},{"id":4}]`},
		{name: "like all", target: ids + "title=like(all).{*o*,*d*}", status: 200, body: `[{"id":1},{"id":2},{"id":4},{"id":5}]`},
		{name: "eq any", target: ids + "id=eq(any).{1,3}", status: 200, body: `[{"id":1},{"id":3}]`},
		{name: "json path text", target: ids + "metadata->>isbn=eq.978-0143106692", status: 200, body: `[{"id":1}]`},
		{name: "json path json", target: ids + "metadata->edition=eq.2", status: 200, body: `[{"id":2}]`},
		{name: "json path cs", target: "/authors?select=id&profile->languages=cs.[%22Gikuyu%22]", status: 200, body: `[{"id":1}]`},
		{name: "plus is a space", target: ids + "title=eq.Arrow+of+God", status: 200, body: `[{"id":4}]`},

		// Logic trees.
		{name: "or", target: ids + "or=(author_id.eq.3,price.gt.14)", status: 200, body: `[{"id":2},{"id":5}]`},
		{name: "nested and", target: ids + "or=(and(author_id.eq.1,price.lt.13),id.eq.5)", status: 200, body: `[{"id":1},{"id":5}]`},
		{name: "not or", target: ids + "not.or=(author_id.eq.1,author_id.is.null)", status: 200, body: `[{"id":3},{"id":4},{"id":5}]`},
		{name: "or with in and ilike", target: ids + "or=(id.in.(1,2),title.ilike.*river*)", status: 200, body: `[{"id":1},{"id":2},{"id":5}]`},
		{name: "and param", target: ids + "and=(price.gt.10,price.lt.12)", status: 200, body: `[{"id":3},{"id":4}]`},
		{name: "or quoted value", target: ids + "or=(title.eq.%22Weep%20Not,%20Child%22,id.eq.6)", status: 200, body: `[{"id":1},{"id":6}]`},
		{name: "or array value", target: ids + "or=(tags.cs.{nigeria,classic},id.eq.6)", status: 200, body: `[{"id":3},{"id":6}]`},

		// Order.
		{name: "order nullslast", target: "/books?select=id&order=editor_id.desc.nullslast,id", status: 200, body: `[{"id":1},{"id":3},{"id":2},{"id":4},{"id":5},{"id":6}]`},
		{name: "order nullsfirst", target: "/books?select=id&order=editor_id.asc.nullsfirst,id", status: 200, body: `[{"id":2},{"id":4},{"id":5},{"id":6},{"id":3},{"id":1}]`},
		{name: "order json path", target: "/books?select=id&metadata=not.is.null&order=metadata->>edition.desc.nullslast,id", status: 200, body: `[{"id":5},{"id":2},{"id":1},{"id":3}]`},

		// Shapes.
		{name: "json path select", target: "/books?select=id,isbn:metadata->>isbn,metadata->edition&id=eq.1", status: 200, body: `[{"id":1,"isbn":"978-0143106692","edition":1}]`},
		{name: "json array index", target: "/authors?select=id,profile->languages->0&id=eq.1", status: 200, body: `[{"id":1,"languages":"Gikuyu"}]`},
		{name: "cast", target: "/books?select=id,price::text&id=eq.1", status: 200, body: `[{"id":1,"price":"12.50"}]`},
		{name: "alias and cast", target: "/books?select=cost:price::text&id=eq.3", status: 200, body: `[{"cost":"10.99"}]`},
		{name: "array column", target: "/books?select=tags&id=eq.2", status: 200, body: `[{"tags":["kenya","politics"]}]`},

		// Embedding.
		{name: "many-to-one with fk hint", target: "/books?select=id,authors!books_author_id_fkey(name)&id=in.(1,6)&order=id", status: 200,
			body: `[{"id":1,"authors":{"name":"` + ngugi + `"}},{"id":6,"authors":null}]`},
		{name: "column hints and aliases", target: "/books?select=id,author:authors!author_id(name),editor:authors!editor_id(name)&id=eq.1", status: 200,
			body: `[{"id":1,"author":{"name":"` + ngugi + `"},"editor":{"name":"Chinua Achebe"}}]`},
		{name: "fk column as target", target: "/books?select=id,author_id(name)&id=eq.3", status: 200, body: `[{"id":3,"author_id":{"name":"Chinua Achebe"}}]`},
		{name: "one-to-many", target: "/authors?select=name,books!books_author_id_fkey(title)&id=eq.3", status: 200, body: `[{"name":"Margaret Ogola","books":[{"title":"The River and the Source"}]}]`},
		{name: "one-to-many empty", target: "/authors?select=name,books!books_author_id_fkey(title)&id=eq.4", status: 200, body: `[{"name":"Anonymous","books":[]}]`},
		{name: "many-to-many", target: "/books?select=id,genres(name)&id=eq.2&genres.order=name", status: 200, body: `[{"id":2,"genres":[{"name":"Fiction"},{"name":"Politics"}]}]`},
		{name: "many-to-many reversed with junction hint", target: "/genres?select=name,books!book_genres(id)&id=eq.3", status: 200, body: `[{"name":"Politics","books":[{"id":2}]}]`},
		{name: "one-to-one", target: "/publishers?select=name,publisher_details(address)&order=id", status: 200,
			body: `[{"name":"East African Educational","publisher_details":{"address":"Nairobi"}},{"name":"Heinemann","publisher_details":null}]`},
		{name: "one-to-one back", target: "/publisher_details?select=founded,publishers(name)", status: 200, body: `[{"founded":1965,"publishers":{"name":"East African Educational"}}]`},
		{name: "self many-to-one", target: "/employees?select=name,manager:manager_id(name)&id=eq.4", status: 200, body: `[{"name":"Kamau","manager":{"name":"Otieno"}}]`},
		{name: "self one-to-many", target: "/employees?select=name,employees(name)&id=eq.1&employees.order=id", status: 200, body: `[{"name":"Wanjiru","employees":[{"name":"Otieno"},{"name":"Achieng"}]}]`},
		{name: "nested embeds", target: "/authors?select=name,books!books_author_id_fkey(title,genres(name))&id=eq.3", status: 200,
			body: `[{"name":"Margaret Ogola","books":[{"title":"The River and the Source","genres":[{"name":"Fiction"}]}]}]`},
		{name: "inner join filters parents", target: "/books?select=id,authors!books_author_id_fkey!inner(country)&authors.country=eq.Kenya&order=id", headers: []string{"Prefer: count=exact"}, status: 200,
			want: map[string]string{"Content-Range": "0-2/3"}, body: `[{"id":1,"authors":{"country":"Kenya"}},{"id":2,"authors":{"country":"Kenya"}},{"id":5,"authors":{"country":"Kenya"}}]`},
		{name: "left join keeps parents", target: "/books?select=id,authors!books_author_id_fkey!left(country)&authors.country=eq.Nigeria&id=in.(1,3)&order=id", status: 200,
			body: `[{"id":1,"authors":null},{"id":3,"authors":{"country":"Nigeria"}}]`},
		{name: "embedded filter order limit", target: "/authors?select=name,books!books_author_id_fkey(id)&id=eq.1&books.price=gt.10&books.order=id.desc&books.limit=1", status: 200,
			body: `[{"name":"` + ngugi + `","books":[{"id":2}]}]`},
		{name: "embedded or", target: "/authors?select=id,books!books_author_id_fkey(id)&id=eq.2&books.or=(id.eq.4,pages.lt.100)", status: 200, body: `[{"id":2,"books":[{"id":4}]}]`},
		{name: "null embed filter", target: "/authors?select=name,books!books_author_id_fkey(id)&books=is.null", status: 200, body: `[{"name":"Anonymous","books":[]}]`},
		{name: "not null embed filter", target: "/authors?select=id,books!books_author_id_fkey()&books=not.is.null&order=id", headers: []string{"Prefer: count=exact"}, status: 200,
			want: map[string]string{"Content-Range": "0-2/3"}, body: `[{"id":1},{"id":2},{"id":3}]`},
		{name: "null filter on a to-many spread", target: "/authors?select=name,...books!books_author_id_fkey(title)&books=is.null", status: 200, body: `[{"name":"Anonymous","title":[]}]`},
		{name: "not null filter on a to-many spread", target: "/authors?select=id,...books!books_author_id_fkey(title)&books=not.is.null&order=id&books.order=id", status: 200,
			body: `[{"id":1,"title":["Weep Not, Child","Petals of Blood"]},{"id":2,"title":["Things Fall Apart","Arrow of God"]},{"id":3,"title":["The River and the Source"]}]`},
		{name: "order by to-one embed", target: "/books?select=id,authors!books_author_id_fkey(name)&author_id=not.is.null&order=authors(name).desc,id", status: 200,
			body: `[{"id":1,"authors":{"name":"` + ngugi + `"}},{"id":2,"authors":{"name":"` + ngugi + `"}},{"id":5,"authors":{"name":"Margaret Ogola"}},{"id":3,"authors":{"name":"Chinua Achebe"}},{"id":4,"authors":{"name":"Chinua Achebe"}}]`},
		{name: "spread to-one", target: "/books?select=id,...authors!books_author_id_fkey(author:name,country)&id=eq.1", status: 200, body: `[{"id":1,"author":"` + ngugi + `","country":"Kenya"}]`},
		{name: "spread to-many", target: "/authors?select=id,...books!books_author_id_fkey(title)&id=eq.2&books.order=id", status: 200, body: `[{"id":2,"title":["Things Fall Apart","Arrow of God"]}]`},
		{name: "view relationships", target: "/book_view?select=id,authors(name),genres(name)&id=eq.3&genres.order=name", status: 200,
			body: `[{"id":3,"authors":{"name":"Chinua Achebe"},"genres":[{"name":"Fiction"},{"name":"History"}]}]`},
		{name: "view rows", target: "/book_view?select=id&order=id", status: 200, body: `[{"id":1},{"id":2},{"id":3},{"id":5},{"id":6}]`},

		// Aggregates.
		{name: "count group by", target: "/books?select=author_id,count()&author_id=not.is.null&order=author_id", status: 200,
			body: `[{"author_id":1,"count":2},{"author_id":2,"count":2},{"author_id":3,"count":1}]`},
		{name: "sum avg max min", target: "/books?select=price.sum(),pages.max(),pages.min(),total:id.count()", status: 200, body: `[{"sum":58.99,"max":345,"min":154,"total":6}]`},
		{name: "aggregate cast", target: "/books?select=pages.avg()::int", status: 200, body: `[{"avg":247}]`},
		{name: "aggregate in embed", target: "/authors?select=name,books!books_author_id_fkey(count())&id=eq.1", status: 200, body: `[{"name":"` + ngugi + `","books":[{"count":2}]}]`},

		// Media types.
		{name: "single object", target: "/authors?select=name&id=eq.2", headers: []string{objAccept}, status: 200,
			want: map[string]string{"Content-Type": "application/vnd.pgrst.object+json; charset=utf-8"}, body: `{"name":"Chinua Achebe"}`},
		{name: "single of none", target: "/authors?id=eq.99", headers: []string{objAccept}, status: 406,
			body: `{"code":"PGRST116","message":"Cannot coerce the result to a single JSON object","details":"The result contains 0 rows","hint":null}`},
		{name: "single of many", target: "/authors", headers: []string{objAccept}, status: 406, body: `~The result contains 4 rows`},
		{name: "nulls stripped", target: "/authors?select=id,country&id=eq.4", headers: []string{"Accept: application/vnd.pgrst.array+json;nulls=stripped"}, status: 200, body: `[{"id":4}]`},
		{name: "csv", target: "/authors?select=id,country&id=lte.2&order=id", headers: []string{"Accept: text/csv"}, status: 200,
			want: map[string]string{"Content-Type": "text/csv; charset=utf-8"}, body: "id,country\n1,Kenya\n2,Nigeria"},
		{name: "unacceptable", target: "/authors", headers: []string{"Accept: text/html"}, status: 406,
			body: `{"code":"PGRST107","message":"None of these media types are available: text/html","details":null,"hint":null}`},
		{name: "openapi", target: "/", status: 200, want: map[string]string{"Content-Type": "application/openapi+json; charset=utf-8"}, body: `~"/authors":`},

		// Errors.
		{name: "ambiguous embed", target: "/books?select=id,authors(name)", status: 300, body: `~"code":"PGRST201"`},
		{name: "no relationship", target: "/authors?select=name,genres(name)", status: 400,
			body: `~"details":"Searched for a foreign key relationship between 'authors' and 'genres' in the schema 'library', but no matches were found."`},
		{name: "missing table", target: "/autors", status: 404,
			body: `{"code":"PGRST205","message":"Could not find the table 'library.autors' in the schema cache","details":null,"hint":"Perhaps you meant the table 'library.authors'"}`},
		{name: "unknown column", target: "/authors?select=nope", status: 400, body: `{"code":"42703","message":"column authors.nope does not exist","details":null,"hint":null}`},
		{name: "unknown filter column", target: "/authors?nope=eq.1", status: 400, body: `~"code":"42703"`},
		{name: "bad filter", target: "/authors?id=foo.1", status: 400, body: `~"code":"PGRST100"`},
		{name: "bad select", target: "/authors?select=id,", status: 400, body: `~"code":"PGRST100"`},
		{name: "filter on non-embedded", target: "/books?select=id&authors.name=eq.x", status: 400,
			body: `{"code":"PGRST108","message":"'authors' is not an embedded resource in this request","details":null,"hint":"Verify that 'authors' is included in the 'select' query parameter."}`},
		{name: "bad operator on embed", target: "/authors?select=name,books!books_author_id_fkey(id)&books=eq.1", status: 400, body: `~"code":"PGRST120"`},
		{name: "order by to-many embed", target: "/authors?select=name,books!books_author_id_fkey(id)&order=books(id)", status: 400, body: `~"code":"PGRST118"`},
		{name: "type error is postgres'", target: ids + "id=eq.abc", status: 400, body: `~"code":"22P02"`},
		{name: "unknown profile", target: "/authors", headers: []string{"Accept-Profile: nope"}, status: 406,
			body: `{"code":"PGRST106","message":"Invalid schema: nope","details":null,"hint":"Only the following schemas are exposed: library, public"}`},
		{name: "other profile", target: "/authors", headers: []string{"Accept-Profile: public"}, status: 404, want: map[string]string{"Content-Profile": ""}, body: `~"code":"PGRST205"`},
		{name: "deep path", target: "/a/b/c", status: 404, body: `~"code":"PGRST125"`},
		{name: "strict unknown preference", target: "/authors", headers: []string{"Prefer: handling=strict, bogus=1"}, status: 400, body: `~"code":"PGRST122"`},
		{name: "lenient unknown preference", target: "/authors?select=id&limit=1", headers: []string{"Prefer: bogus=1"}, status: 200},
		{name: "options", method: "OPTIONS", target: "/books", status: 200, want: map[string]string{"Allow": "OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE"}},
		{name: "server timing", target: "/genres?limit=1", status: 200, body: `~"Fiction"`},
	})
}

// TestReadsAsRoles checks RLS and privileges per role.
func TestReadsAsRoles(t *testing.T) {
	t.Parallel()
	s := newStack(t, nil)
	expired := token(t, map[string]any{"role": "authenticated", "sub": user1, "exp": 1000})
	s.run(t, []expect{
		{name: "anon sees public reviews", as: anon, target: "/reviews?select=id&order=id", status: 200, body: `[{"id":1},{"id":2}]`},
		{name: "anon key sees public reviews", as: anonJWT, target: "/reviews?select=id&order=id", status: 200, body: `[{"id":1},{"id":2}]`},
		{name: "user one sees their private review", as: u1, target: "/reviews?select=id&order=id", status: 200, body: `[{"id":1},{"id":2},{"id":3}]`},
		{name: "user two sees theirs", as: u2, target: "/reviews?select=id&order=id", status: 200, body: `[{"id":1},{"id":2},{"id":4}]`},
		{name: "service role bypasses RLS", as: service, target: "/reviews?select=id&order=id", status: 200, body: `[{"id":1},{"id":2},{"id":3},{"id":4}]`},
		{name: "embedded reviews follow RLS", as: u2, target: "/books?select=id,reviews(id)&id=eq.3", status: 200, body: `[{"id":3,"reviews":[{"id":4}]}]`},
		{name: "anon denied", as: anon, target: "/secrets", status: 401, want: map[string]string{"WWW-Authenticate": "Bearer"},
			body: `{"code":"42501","message":"permission denied for table secrets","details":null,"hint":null}`},
		{name: "anon key denied", as: anonJWT, target: "/secrets", status: 401, body: `~"code":"42501"`},
		{name: "user denied", as: u1, target: "/secrets", status: 403, want: map[string]string{"WWW-Authenticate": ""}, body: `~"code":"42501"`},
		{name: "service allowed", as: service, target: "/secrets", status: 200, body: `[{"id":1,"value":"hidden"}]`},
		{name: "who am i", as: u1, target: "/rpc/whoami", headers: []string{"Origin: http://app.test", "Cookie: session=abc; theme=dark"}, status: 200,
			body: `~"uid": "` + user1 + `"`},
		{name: "who am i role", as: u1, target: "/rpc/whoami", status: 200, body: `~"role": "authenticated"`},
		{name: "who am i read only", as: service, target: "/rpc/whoami", status: 200, body: `~"read_only": "on"`},
		{name: "who am i headers", as: u2, target: "/rpc/whoami", headers: []string{"Origin: http://app.test", "Cookie: session=abc; theme=dark"}, status: 200,
			body: `~"cookie": "abc", "method": "GET", "origin": "http://app.test"`},
		{name: "who am i path", as: anon, target: "/rpc/whoami", status: 200, body: `~"path": "/rpc/whoami"`},
		{name: "malformed token", target: "/authors", headers: []string{"Authorization: Bearer abc"}, status: 401,
			want: map[string]string{"WWW-Authenticate": `Bearer error="invalid_token", error_description="Expected 3 parts in JWT; got 1"`},
			body: `{"code":"PGRST301","message":"Expected 3 parts in JWT; got 1","details":null,"hint":null}`},
		{name: "expired token", target: "/authors", headers: []string{"Authorization: Bearer " + expired}, status: 401, body: `~"message":"JWT expired"`},
		{name: "wrong signature", target: "/authors", headers: []string{"Authorization: Bearer " + expired[:len(expired)-4] + "AAAA"}, status: 401, body: `~"code":"PGRST301"`},
		{name: "unknown role", target: "/authors", headers: []string{"Authorization: Bearer " + token(t, map[string]any{"role": "ghost"})}, status: 401, body: `~role \"ghost\" does not exist`},
	})
}

// TestConfigVariants covers max-rows, estimated counts and disabled
// aggregates and OpenAPI.
func TestConfigVariants(t *testing.T) {
	t.Parallel()
	s := newStack(t, func(c *pgrst.Config) {
		c.MaxRows, c.Aggregates, c.OpenAPIMode, c.ServerTiming = 2, false, pgrst.OpenAPIDisabled, false
		c.PreRequest, c.TxEnd = "library.pre_request", pgrst.TxCommit
	})
	s.run(t, []expect{
		{name: "max rows caps", target: "/authors?select=id&order=id", status: 200, want: map[string]string{"Content-Range": "0-1/*", "Server-Timing": ""}, body: `[{"id":1},{"id":2}]`},
		{name: "max rows caps embeds", target: "/authors?select=id,books!books_author_id_fkey(id)&id=eq.1&books.order=id", status: 200, body: `[{"id":1,"books":[{"id":1},{"id":2}]}]`},
		{name: "estimated above max rows", target: "/authors?select=id", headers: []string{"Prefer: count=estimated"}, status: 206, want: map[string]string{"Content-Range": "0-1/4"}},
		// The count stops at max-rows + 1: a total at max-rows is still exact.
		{name: "estimated at max rows is exact", target: "/authors?select=id&id=lte.2&limit=1", headers: []string{"Prefer: count=estimated"}, status: 206, want: map[string]string{"Content-Range": "0-0/2"}},
		{name: "aggregates disabled", target: "/books?select=count()", status: 400,
			body: `{"code":"PGRST123","message":"Use of aggregate functions is not allowed","details":null,"hint":null}`},
		{name: "openapi disabled", target: "/", status: 404, body: `~"code":"PGRST126"`},
		{name: "pre-request passes", target: "/genres?select=id&id=eq.1", status: 200, body: `[{"id":1}]`},
		{name: "pre-request refuses", target: "/genres?select=id&id=eq.1", headers: []string{"X-Block: yes"}, status: 403,
			body: `{"code":"PT403","message":"Blocked by the pre-request function","details":null,"hint":null}`},
		{name: "pre-request on rpc", method: "POST", target: "/rpc/noop", headers: []string{"X-Block: yes"}, status: 403, body: `~Blocked`},
		{name: "pre-request on writes", as: service, method: "POST", target: "/genres", payload: `{"id":90,"name":"x"}`, headers: []string{"X-Block: yes"}, status: 403},
		{name: "tx override not allowed", as: service, method: "POST", target: "/genres", payload: `{"id":91,"name":"kept"}`, headers: []string{"Prefer: tx=rollback"}, status: 201,
			want: map[string]string{"Preference-Applied": ""}},
	})
}

// TestEstimatedCountSentAlong asks two reads of one shape in turn, one
// whose count passes max-rows and one whose count does not: once a read
// has been estimated, the next sends its estimate along with the read
// (exec.Tx.EstimateAlong), and a count that then does not pass must stay
// exact, while one that passes must get the same estimate as from a
// second round trip.
func TestEstimatedCountSentAlong(t *testing.T) {
	t.Parallel()
	s := newStack(t, func(c *pgrst.Config) { c.MaxRows = 2 })
	const above, below = "/authors?select=id&id=gt.0&order=id", "/authors?select=id&id=gt.3&order=id"
	var first string
	for i, target := range []string{above, above, above, below, above, below, below, above} {
		resp, _ := s.call(t, "GET", target, "", "Prefer: count=estimated")
		got := resp.Header.Get("Content-Range")
		switch {
		case target == below && got != "0-0/1":
			t.Errorf("request %d, %s: Content-Range %q, want the exact 0-0/1", i, target, got)
		case target == above && first == "":
			first = got
			var total int
			if _, err := fmt.Sscanf(got, "0-1/%d", &total); err != nil || total < 2 {
				t.Fatalf("request %d, %s: Content-Range %q, want 0-1/<estimate of at least max-rows>", i, target, got)
			}
		case target == above && got != first:
			t.Errorf("request %d, %s: Content-Range %q, want %q as first answered", i, target, got, first)
		}
	}
}

// TestEstimatedCountSecondRoundTrip covers count=estimated without a
// pre-request function: the read commits in one round trip and only a
// count past max-rows asks the planner, in a second one under the same
// role (exec.Tx.Estimate); a count at max-rows stays exact.
func TestEstimatedCountSecondRoundTrip(t *testing.T) {
	t.Parallel()
	s := newStack(t, func(c *pgrst.Config) { c.MaxRows = 2 })
	s.run(t, []expect{
		{name: "estimated above max rows", target: "/authors?select=id", headers: []string{"Prefer: count=estimated"}, status: 206,
			want: map[string]string{"Content-Range": "0-1/4", "Preference-Applied": "count=estimated"}},
		{name: "estimated at max rows is exact", target: "/authors?select=id&id=lte.2&limit=1", headers: []string{"Prefer: count=estimated"}, status: 206,
			want: map[string]string{"Content-Range": "0-0/2"}},
		{name: "estimated on HEAD", method: "HEAD", target: "/authors?select=id", headers: []string{"Prefer: count=estimated"}, status: 206,
			want: map[string]string{"Content-Range": "0-1/4"}, body: ""},
	})
}
