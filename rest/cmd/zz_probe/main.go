package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

func main() {
	ctx := context.Background()
	a, _ := pgconn.Connect(ctx, "postgres://authenticator@127.0.0.1:5432/benchx")
	f, _ := pgconn.Connect(ctx, "postgres://authenticator@127.0.0.1:5432/benchx")
	f.Exec(ctx, "set role anon").ReadAll()
	floor := `select coalesce(json_agg(_postgrest_t), '[]')::text from (select * from public.properties where is_active = true order by created_at desc limit 20) _postgrest_t`
	mainQ := `WITH pgrst_source AS ((SELECT "public"."properties".* FROM "public"."properties" WHERE "public"."properties"."is_active" = $1 ORDER BY "public"."properties"."created_at" DESC) LIMIT 20) SELECT null::bigint AS total_result_set, pg_catalog.count(_postgrest_t) AS page_total, coalesce(json_agg(_postgrest_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, null::bigint AS response_inserted, '[]'::text AS location FROM (SELECT * FROM pgrst_source) _postgrest_t`
	pre := `select set_config($1,$2,true), set_config($3,$4,true), set_config($5,$6,true), set_config($7,$8,true), set_config($9,$10,true), set_config($11,$12,true), set_config($13,$14,true), set_config($15,$16,true), set_config($17,$18,true), set_config($19,$20,true), set_config($21,$22,true)`
	args := [][]byte{[]byte("search_path"), []byte(`"public", "extensions"`), []byte("role"), []byte("anon"), []byte("request.jwt.claims"), []byte(`{"role":"anon","iss":"x","exp":1}`), []byte("request.jwt.claim.sub"), []byte(""), []byte("request.jwt.claim.role"), []byte("anon"), []byte("request.method"), []byte("GET"), []byte("request.path"), []byte("/properties"), []byte("request.headers"), []byte(`{"host":"127.0.0.1","user-agent":"Go-http-client/1.1","authorization":"Bearer xxxxxxxx","accept-profile":"public"}`), []byte("request.cookies"), []byte("{}"), []byte("statement_timeout"), []byte("3s"), []byte("transaction_read_only"), []byte("on")}
	f.Prepare(ctx, "floor", floor, nil)
	a.Prepare(ctx, "pre", pre, nil)
	pipe := func(c *pgconn.PgConn, stmts ...string) {
		pl := c.StartPipeline(ctx)
		for _, s := range stmts {
			switch s {
			case "pre":
				pl.SendQueryPrepared("pre", args, nil, nil)
			case "main":
				pl.SendQueryPrepared("main", [][]byte{[]byte("true")}, nil, nil)
			default:
				pl.SendQueryPrepared(s, nil, nil, nil)
			}
		}
		pl.Sync()
		for range len(stmts) + 1 {
			r, _ := pl.GetResults()
			if rr, ok := r.(*pgconn.ResultReader); ok {
				rr.Close()
			}
		}
		pl.Close()
	}
	run := func(name string, f func()) {
		for range 200 {
			f()
		}
		n := 3000
		t0 := time.Now()
		for range n {
			f()
		}
		fmt.Printf("%-28s %v\n", name, time.Since(t0)/time.Duration(n))
	}
	pipe(a, "pre")
	a.Exec(ctx, "begin; select set_config('role','anon',true);").ReadAll()
	a.Prepare(ctx, "main", mainQ, nil)
	a.Prepare(ctx, "floor", floor, nil)
	a.Exec(ctx, "commit").ReadAll()
	for range 2 {
		run("floor (session role anon)", func() { pipe(f, "floor") })
		run("pre+floor", func() { pipe(a, "pre", "floor") })
		run("pre+main", func() { pipe(a, "pre", "main") })
		run("pre only", func() { pipe(a, "pre") })
	}
}
