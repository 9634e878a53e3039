package httpapi

import (
	"context"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/valyala/fasthttp"
)

// benchTarget is a typical listing read: a page of the newest rows.
const benchTarget = "/books?select=*&in_print=eq.true&order=created_at.desc&limit=20"

// benchFloorSQL answers benchTarget with the same JSON, as the least any
// server can do: one cached prepared statement.
const benchFloorSQL = `select coalesce(json_agg(_postgrest_t), '[]')::text from (select * from library.books where in_print = true order by created_at desc limit 20) _postgrest_t`

// BenchmarkRead measures one read end to end, with allocations: "rest" goes
// through the Fiber app (middlewares, JWT, the pipeline and its
// transaction) on an in-memory request, as the gateway forwards it; "pgx"
// runs the same query through plain pgx as anon, the floor rest is
// compared with (cmd/restbench does the same over loopback HTTP).
func BenchmarkRead(b *testing.B) {
	s := newStack(b, nil)
	jwt := token(b, map[string]any{"role": "anon"})
	b.Run("rest", func(b *testing.B) {
		h := s.app.Handler()
		var req fasthttp.Request
		req.Header.SetMethod("GET")
		req.SetRequestURI(benchTarget)
		req.Header.SetHost("rest:3000")
		req.Header.Set("Authorization", "Bearer "+jwt)
		req.Header.Set("Accept-Profile", "library")
		req.Header.Set("X-Request-Id", "bench")
		addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}
		var ctx fasthttp.RequestCtx
		serve := func() {
			ctx.Init(&req, addr, nil)
			h(&ctx)
			if ctx.Response.StatusCode() != 200 {
				b.Fatalf("status %d: %s", ctx.Response.StatusCode(), ctx.Response.Body())
			}
		}
		serve()
		b.ReportAllocs()
		cpu := processCPU()
		for b.Loop() {
			serve()
		}
		reportCPU(b, cpu)
	})
	b.Run("pgx", func(b *testing.B) {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, s.db.URLAs("authenticator"))
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "set role anon"); err != nil {
			b.Fatal(err)
		}
		var body []byte
		b.ReportAllocs()
		cpu := processCPU()
		for b.Loop() {
			if err := conn.QueryRow(ctx, benchFloorSQL).Scan(&body); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu)
	})
}

// processCPU is the CPU time this process has used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process's CPU time per operation since start: the
// Go side's cost, without the time spent waiting for Postgres (which
// ns/op includes).
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}
