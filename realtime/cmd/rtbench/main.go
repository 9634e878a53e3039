// Command rtbench measures realtime's commit-to-delivery latency and memory
// per idle socket. It is not run by tests; run it from the repository root
// after `make build-go`:
//
//	go run ./realtime/cmd/rtbench [-sockets 1000] [-changes 200] [-users 0]
//
// It creates a scratch database from the migrated test template (on the
// server pgtest uses: TEST_DATABASE_URL, else 127.0.0.1:5432), starts
// bin/realtime against it, measures the server's RSS, opens -sockets
// sockets that each join a channel subscribed to postgres_changes on a
// benchmark table (as anon, or spread over -users distinct signed-in users,
// which costs one RLS re-read per distinct user and change), measures the
// RSS again, then commits -changes single-row inserts at -rate per second
// and records, for every delivery to every socket, the time from the
// INSERT's commit returning to the frame arriving. It prints p50, p90, p99
// and max latency and the RSS per idle subscribed socket.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/jackc/pgx/v5"

	"github.com/kejanest/kejanest/platform/devkeys"
	"github.com/kejanest/kejanest/platform/jwtverify"
	"github.com/kejanest/kejanest/platform/pgtest"
)

func main() {
	sockets := flag.Int("sockets", 1000, "subscribed sockets")
	nChanges := flag.Int("changes", 200, "inserts to time")
	rate := flag.Int("rate", 50, "inserts per second")
	users := flag.Int("users", 0, "distinct signed-in users (0: every socket is anon)")
	bin := flag.String("bin", "bin/realtime", "realtime binary")
	flag.Parse()
	if err := run(*sockets, *nChanges, *rate, *users, *bin); err != nil {
		fmt.Fprintln(os.Stderr, "rtbench:", err)
		os.Exit(1)
	}
}

func run(nSockets, nChanges, rate, users int, bin string) error {
	ctx := context.Background()
	admin, err := pgtest.ServerURL(ctx)
	if err != nil {
		return err
	}
	tpl, err := pgtest.Template(ctx, pgtest.Options{MigrationsDir: filepath.Join(pgtest.RepoRoot(), "sql", "migrations")})
	if err != nil {
		return fmt.Errorf("template: %w", err)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	dbName := "rtbench_" + hex.EncodeToString(b)
	aconn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return err
	}
	defer aconn.Close(ctx)
	if _, err := aconn.Exec(ctx, fmt.Sprintf("create database %s template %s", dbName, pgx.Identifier{tpl}.Sanitize())); err != nil {
		return err
	}
	defer func() {
		_, _ = aconn.Exec(context.Background(), "drop database if exists "+dbName+" with (force)")
	}()
	dbURL := withDB(admin, dbName)
	db, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer db.Close(ctx)
	if _, err := db.Exec(ctx, `
create table public.bench (id bigint generated always as identity primary key, owner uuid, body text, created_at timestamptz default now());
alter table public.bench enable row level security;
create policy bench_select on public.bench for select using (owner is null or owner = (select auth.uid()));
grant select on public.bench to anon, authenticated;
alter publication supabase_realtime add table public.bench`); err != nil {
		return err
	}

	port, err := pgtest.FreePort()
	if err != nil {
		return err
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+asUser(dbURL, "authenticator"), "PORT="+strconv.Itoa(port),
		"REALTIME_HOST=127.0.0.1", "API_JWT_SECRET="+devkeys.JWTSecret, "LOG_LEVEL=warning")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", bin, err)
	}
	defer func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if i > 100 {
			return fmt.Errorf("realtime did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	rss0 := rss(cmd.Process.Pid)

	type sock struct {
		c  *websocket.Conn
		ch chan time.Time
	}
	var socks []*sock
	tokens := []string{devkeys.AnonKey}
	if users > 0 {
		tokens = nil
		for i := 0; i < users; i++ {
			tok, _ := jwtverify.SignHS256(map[string]any{"sub": fmt.Sprintf("00000000-0000-0000-0000-%012d", i), "role": "authenticated",
				"exp": time.Now().Add(time.Hour).Unix()}, []byte(devkeys.JWTSecret))
			tokens = append(tokens, tok)
		}
	}
	start := time.Now()
	for i := 0; i < nSockets; i++ {
		dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		c, _, err := websocket.Dial(dctx, "ws://"+addr+"/websocket?vsn=2.0.0&apikey="+devkeys.AnonKey, nil)
		cancel()
		if err != nil {
			return fmt.Errorf("dial socket %d: %w", i, err)
		}
		defer c.CloseNow()
		join := fmt.Sprintf(`["1","1","realtime:bench","phx_join",{"config":{"postgres_changes":[{"event":"INSERT","schema":"public","table":"bench"}]},"access_token":%q}]`, tokens[i%len(tokens)])
		if err := c.Write(ctx, websocket.MessageText, []byte(join)); err != nil {
			return err
		}
		s := &sock{c: c, ch: make(chan time.Time, nChanges+10)}
		socks = append(socks, s)
		subscribed := make(chan struct{})
		go func() {
			once := sync.Once{}
			for {
				_, data, err := c.Read(context.Background())
				if err != nil {
					return
				}
				now := time.Now()
				switch {
				case bytes.Contains(data, []byte(`,"postgres_changes",{"ids"`)):
					s.ch <- now
				case bytes.Contains(data, []byte(`,"system",`)):
					once.Do(func() { close(subscribed) })
				}
			}
		}()
		select {
		case <-subscribed:
		case <-time.After(10 * time.Second):
			return fmt.Errorf("socket %d not subscribed", i)
		}
	}
	joinTime := time.Since(start)
	time.Sleep(time.Second)
	rss1 := rss(cmd.Process.Pid)

	var lat []time.Duration
	interval := time.Second / time.Duration(rate)
	missing := 0
	for i := 0; i < nChanges; i++ {
		if _, err := db.Exec(ctx, "insert into public.bench (body) values ('x')"); err != nil {
			return err
		}
		committed := time.Now()
		for _, s := range socks {
			select {
			case t := <-s.ch:
				lat = append(lat, t.Sub(committed))
			case <-time.After(5 * time.Second):
				missing++
			}
		}
		if d := interval - time.Since(committed); d > 0 {
			time.Sleep(d)
		}
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(float64(len(lat))*p))]
	}
	fmt.Printf("sockets=%d claims_groups=%d changes=%d rate=%d/s deliveries=%d missing=%d joins_took=%s\n",
		nSockets, len(tokens), nChanges, rate, len(lat), missing, joinTime.Round(time.Millisecond))
	fmt.Printf("commit-to-delivery p50=%s p90=%s p99=%s max=%s\n", pct(0.50).Round(10*time.Microsecond),
		pct(0.90).Round(10*time.Microsecond), pct(0.99).Round(10*time.Microsecond), pct(1).Round(10*time.Microsecond))
	fmt.Printf("rss idle=%.1f MiB with sockets=%.1f MiB per subscribed socket=%.1f KiB\n",
		float64(rss0)/(1<<20), float64(rss1)/(1<<20), float64(rss1-rss0)/float64(nSockets)/1024)
	return nil
}

// rss reads VmRSS of pid in bytes (Linux).
func rss(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

func withDB(u, db string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	p.Path = "/" + db
	return p.String()
}

func asUser(u, user string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	p.User = url.User(user)
	return p.String()
}
