package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kejanest/kejanest/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// The binaries an ephemeral stack runs. The test builds them with the same
// `go build` as `make build-go` (so the Go build cache serves both) into a
// folder that outlives the test: go build skips the link of a binary that
// is already up to date there, which saves most of a minute on a busy
// machine.
var stackPackages = []string{
	"./gateway/cmd/gateway", "./rest/cmd/rest", "./rpc/cmd/rpc", "./authsvc/cmd/authsvc",
	"./realtime/cmd/realtime", "./storage/cmd/storage", "./authsvc/cmd/devmail", "./devstack/cmd/devstack",
	"./payments/cmd/payments", "./payments/cmd/darajasim",
}

// TestStackRecoversFromKilledServices starts the real ephemeral stack,
// writes to it through the gateway without pause, SIGKILLs each service in
// turn and checks that the service comes back, requests succeed again,
// every acknowledged write is in the database and the ledger still sums to
// zero.
func TestStackRecoversFromKilledServices(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finds the services' processes through /proc")
	}
	t.Parallel()
	s := startEphemeralStack(t)
	began := time.Now()
	user := s.signUp(t, "load@kejanest.test", "load-password-1")
	if status, body := s.call(http.MethodPost, "/rest/v1/rpc/issue_currency", s.serviceKey, s.serviceKey,
		map[string]any{"p_user_id": user.id, "p_currency": "nestcoins", "p_amount": 1_000_000, "p_idempotency_key": "seed"}); status != http.StatusOK {
		t.Fatalf("seed coins: %d %s", status, body)
	}

	ctx, stopLoad := context.WithCancel(context.Background())
	l := &load{stack: s, user: user}
	var workers sync.WaitGroup
	workers.Go(func() { l.issue(ctx) })
	workers.Go(func() { l.listAndPay(ctx) })
	defer func() { stopLoad(); workers.Wait() }()
	l.waitForProgress(t, s, "load starts")

	for _, name := range []string{"gateway", "rest", "rpc", "authsvc", "realtime", "storage"} {
		old := s.childPID(t, name)
		killed := time.Now()
		if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
			t.Fatalf("kill %s: %v", name, err)
		}
		s.waitUntil(t, name+" answers through the gateway again", 20*time.Second, func() bool { return s.probe(name) })
		back := time.Since(killed)
		if pid := s.childPID(t, name); pid == old {
			t.Fatalf("%s still has pid %d: it was not restarted", name, pid)
		}
		l.waitForProgress(t, s, "writes succeed after "+name+" came back")
		t.Logf("%-8s killed -> answering through the gateway in %v", name, back.Round(time.Millisecond))
	}
	stopLoad()
	workers.Wait()
	t.Logf("writes acknowledged: %d issues, %d listings, %d fee payments; refused or lost in flight: %d",
		len(l.issued), len(l.listings), len(l.fees), l.failures.Load())

	s.checkSupervisorLog(t)
	s.checkDatabase(t, l)
	t.Logf("stack up to last check: %v", time.Since(began).Round(time.Millisecond))
	s.stopAndCheckCleanup(t)
}

// ephemeralStack is a running `devstack -ephemeral` and what its ready line
// said.
type ephemeralStack struct {
	url, anonKey, serviceKey, databaseURL, adminURL, binDir string

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *lockedBuffer
	exited chan struct{}
	client *http.Client
}

func startEphemeralStack(t *testing.T) *ephemeralStack {
	t.Helper()
	root := pgtest.RepoRoot()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256([]byte(root))
	binDir := filepath.Join(cache, "kejanest-devstack-test", hex.EncodeToString(sum[:6]), "bin")
	built := time.Now()
	build := exec.Command("go", append([]string{"build", "-o", binDir + string(filepath.Separator)}, stackPackages...)...)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Logf("built the stack's binaries in %v", time.Since(built).Round(time.Millisecond))
	if binDir, err = filepath.EvalSymlinks(binDir); err != nil { // as /proc/<pid>/exe names it
		t.Fatal(err)
	}
	// devstack takes sql/ and bin/ from its root; the frontend is not built
	// here, which only makes the gateway answer / with 503.
	work := t.TempDir()
	for name, target := range map[string]string{"sql": filepath.Join(root, "sql"), "bin": binDir} {
		if err := os.Symlink(target, filepath.Join(work, name)); err != nil {
			t.Fatal(err)
		}
	}
	admin, err := pgtest.ServerURL(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	s := &ephemeralStack{adminURL: admin, binDir: binDir, stderr: &lockedBuffer{}, exited: make(chan struct{}),
		client: &http.Client{Timeout: 5 * time.Second}}
	s.cmd = exec.Command(filepath.Join(work, "bin", "devstack"), "-ephemeral", "-root", work)
	// rest and rpc as children of their own (not in the gateway), so their
	// supervision is tested as docker-compose.yml's layout has it.
	s.cmd.Env = append(os.Environ(), "TEST_DATABASE_URL="+admin, "KEJANEST_AUTHSVC_GOTRUE_MAILER_AUTOCONFIRM=true", "DEVSTACK_INPROCESS=false")
	s.cmd.Stderr = s.stderr
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
		_ = s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		_ = s.stdin.Close()
		select {
		case <-s.exited:
		case <-time.After(30 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
		if t.Failed() {
			t.Logf("devstack's log:\n%s", s.stderr.String())
		}
	})

	var ready struct {
		Event, URL, AnonKey, ServiceRoleKey, DatabaseURL string
	}
	select {
	case line := <-lines:
		if err := json.Unmarshal([]byte(line), &ready); err != nil || ready.Event != "ready" {
			t.Fatalf("want the ready line, got %q (%v)", line, err)
		}
	case <-s.exited:
		t.Fatalf("devstack exited before it was ready:\n%s", s.stderr.String())
	case <-time.After(90 * time.Second):
		t.Fatalf("devstack not ready within 90 s:\n%s", s.stderr.String())
	}
	t.Logf("stack ready in %v", time.Since(started).Round(time.Millisecond))
	s.url, s.anonKey, s.serviceKey, s.databaseURL = ready.URL, ready.AnonKey, ready.ServiceRoleKey, ready.DatabaseURL
	return s
}

// call sends a JSON request through the gateway and returns the status
// and body; status 0 means the request got no answer.
func (s *ephemeralStack) call(method, path, apikey, bearer string, body any, headers ...string) (int, []byte) {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.url+path, r)
	if err != nil {
		return 0, []byte(err.Error())
	}
	req.Header.Set("apikey", apikey)
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

type signedIn struct{ id, token, email, password string }

func (s *ephemeralStack) signUp(t *testing.T, email, password string) signedIn {
	t.Helper()
	status, body := s.call(http.MethodPost, "/auth/v1/signup", s.anonKey, s.anonKey, map[string]string{"email": email, "password": password})
	var session struct {
		AccessToken string `json:"access_token"`
		User        struct {
			ID string `json:"id"`
		} `json:"user"`
	}
	if err := json.Unmarshal(body, &session); status != http.StatusOK || err != nil || session.AccessToken == "" {
		t.Fatalf("sign-up: %d %s", status, body)
	}
	return signedIn{id: session.User.ID, token: session.AccessToken, email: email, password: password}
}

// probe makes one request through the gateway that needs the named service
// (and the database behind it) and reports whether it succeeded.
func (s *ephemeralStack) probe(name string) bool {
	var status int
	switch name {
	case "gateway", "rest":
		status, _ = s.call(http.MethodGet, "/rest/v1/nestcoin_packages?select=id&limit=1", s.anonKey, s.anonKey, nil)
	case "rpc":
		status, _ = s.call(http.MethodPost, "/rest/v1/rpc/is_admin", s.anonKey, s.anonKey, map[string]any{})
	case "authsvc":
		status, _ = s.call(http.MethodPost, "/auth/v1/token?grant_type=password", s.anonKey, s.anonKey,
			map[string]string{"email": "load@kejanest.test", "password": "load-password-1"})
	case "realtime":
		status, _ = s.call(http.MethodGet, "/realtime/v1/api/health", s.anonKey, s.anonKey, nil)
	case "storage":
		status, _ = s.call(http.MethodGet, "/storage/v1/bucket", s.serviceKey, s.serviceKey, nil)
	}
	return status == http.StatusOK
}

// childPID finds the one running process of the named service's binary.
func (s *ephemeralStack) childPID(t *testing.T, name string) int {
	t.Helper()
	exe := filepath.Join(s.binDir, name)
	var pid int
	s.waitUntil(t, name+" has exactly one process", 10*time.Second, func() bool {
		pids := processesOf(exe, s.cmd.Process.Pid)
		if len(pids) == 1 {
			pid = pids[0]
		}
		return len(pids) == 1
	})
	return pid
}

// processesOf lists the live children of parent that run the executable
// exe (a killed one that is not yet reaped has no readable exe link).
func processesOf(exe string, parent int) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if target, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err != nil || target != exe {
			continue
		}
		// stat is "pid (comm) state ppid ...", and comm may hold spaces.
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(parent) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitUntil polls cond every 20 ms; it fails the test at the deadline or as
// soon as devstack has exited.
func (s *ephemeralStack) waitUntil(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		select {
		case <-s.exited:
			t.Fatalf("devstack exited while waiting until %s", what)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting until %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// load writes through the gateway until its context ends, recording each
// write whose commit the stack acknowledged.
type load struct {
	stack    *ephemeralStack
	user     signedIn
	failures atomic.Int64

	mu       sync.Mutex
	issued   map[int64]string // transfer id -> idempotency key, from issue_currency
	listings []string         // property ids, from inserts through /rest/v1
	fees     map[int64]string // transfer id -> listing id, from publish_listing
}

// waitForProgress waits until both writers have had writes acknowledged.
func (l *load) waitForProgress(t *testing.T, s *ephemeralStack, what string) {
	t.Helper()
	l.mu.Lock()
	issued, fees := len(l.issued), len(l.fees)
	l.mu.Unlock()
	s.waitUntil(t, what, 15*time.Second, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.issued) >= issued+3 && len(l.fees) >= fees+3
	})
}

func (l *load) failed() {
	l.failures.Add(1)
	time.Sleep(10 * time.Millisecond) // a service is down: do not spin
}

// issue credits the user from the issuance account (service_role RPC).
func (l *load) issue(ctx context.Context) {
	s := l.stack
	currencies := []string{"nestcoins", "crystals", "keys"}
	for i := 0; ctx.Err() == nil; i++ {
		key := fmt.Sprintf("load:issue:%d", i)
		status, body := s.call(http.MethodPost, "/rest/v1/rpc/issue_currency", s.serviceKey, s.serviceKey, map[string]any{
			"p_user_id": l.user.id, "p_currency": currencies[i%3], "p_amount": 7, "p_idempotency_key": key})
		id, err := strconv.ParseInt(string(bytes.TrimSpace(body)), 10, 64)
		if status != http.StatusOK || err != nil {
			l.failed()
			continue
		}
		l.mu.Lock()
		if l.issued == nil {
			l.issued = map[int64]string{}
		}
		l.issued[id] = key
		l.mu.Unlock()
	}
}

// listAndPay inserts a property as the signed-in user through /rest/v1 and
// pays its listing fee (user wallet -> fees account) through the RPC.
func (l *load) listAndPay(ctx context.Context) {
	s := l.stack
	for i := 0; ctx.Err() == nil; i++ {
		status, body := s.call(http.MethodPost, "/rest/v1/properties", s.anonKey, l.user.token,
			map[string]any{"title": fmt.Sprintf("Load test %d", i), "price": 15000, "type": "Single Room", "purpose": "Rent"},
			"Prefer", "return=representation")
		var rows []struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(body, &rows); status != http.StatusCreated || err != nil || len(rows) != 1 {
			l.failed()
			continue
		}
		l.mu.Lock()
		l.listings = append(l.listings, rows[0].ID)
		l.mu.Unlock()
		// Paid until acknowledged: a replay with the same key charges once.
		for ctx.Err() == nil {
			status, body = s.call(http.MethodPost, "/rest/v1/rpc/publish_listing", s.anonKey, l.user.token, map[string]any{
				"p_kind": "property", "p_listing_id": rows[0].ID, "p_days": 1, "p_idempotency_key": "load"})
			var paid struct {
				TransferID int64 `json:"transfer_id"`
			}
			if err := json.Unmarshal(body, &paid); status != http.StatusOK || err != nil || paid.TransferID == 0 {
				l.failed()
				continue
			}
			l.mu.Lock()
			if l.fees == nil {
				l.fees = map[int64]string{}
			}
			l.fees[paid.TransferID] = rows[0].ID
			l.mu.Unlock()
			break
		}
	}
}

// checkSupervisorLog checks that devstack logged each crash and restart.
func (s *ephemeralStack) checkSupervisorLog(t *testing.T) {
	t.Helper()
	services := []string{"gateway", "rest", "rpc", "authsvc", "realtime", "storage"}
	// A service can answer through the gateway before devstack's own
	// readiness probe sees it, so the last "restarted and ready" line may
	// still be on its way.
	var crashed, restarted map[string]string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		crashed, restarted = s.supervisorEvents()
		if allLogged(services, restarted) || time.Now().After(deadline) {
			break
		}
	}
	for _, name := range services {
		if crashed[name] != "signal: killed" {
			t.Errorf("devstack logged %s's exit as %q, want signal: killed", name, crashed[name])
		}
		if restarted[name] == "" {
			t.Errorf("devstack did not log %s as restarted and ready", name)
		}
	}
	t.Logf("devstack's own crash-to-ready times: %v", restarted)
}

// supervisorEvents reads devstack's log so far: each child's last exit and
// its last crash-to-ready time.
func (s *ephemeralStack) supervisorEvents() (crashed, restarted map[string]string) {
	crashed, restarted = map[string]string{}, map[string]string{}
	for _, line := range strings.Split(s.stderr.String(), "\n") {
		var rec struct{ Msg, Child, Exit, Took string }
		if json.Unmarshal([]byte(line), &rec) != nil {
			continue
		}
		switch rec.Msg {
		case "service exited unexpectedly; restarting":
			crashed[rec.Child] = rec.Exit
		case "service restarted and ready":
			restarted[rec.Child] = rec.Took
		}
	}
	return crashed, restarted
}

func allLogged(names []string, logged map[string]string) bool {
	for _, name := range names {
		if logged[name] == "" {
			return false
		}
	}
	return true
}

// checkDatabase checks that every acknowledged write is there and that the
// ledger still balances.
func (s *ephemeralStack) checkDatabase(t *testing.T, l *load) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	for what, acked := range map[string]map[int64]string{"issue_currency": l.issued, "publish_listing": l.fees} {
		ids := make([]int64, 0, len(acked))
		for id := range acked {
			ids = append(ids, id)
		}
		rows, err := conn.Query(ctx, `select id, idempotency_key, reference from public.wallet_transfers where id = any($1)`, ids)
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for rows.Next() {
			var id int64
			var key, ref string
			if err := rows.Scan(&id, &key, &ref); err != nil {
				t.Fatal(err)
			}
			found++
			if what == "issue_currency" && key != acked[id] {
				t.Errorf("transfer %d has key %q, want %q", id, key, acked[id])
			}
			if what == "publish_listing" && ref != "property:"+acked[id] {
				t.Errorf("transfer %d has reference %q, want property:%s", id, ref, acked[id])
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if found != len(acked) {
			t.Errorf("%s: %d acknowledged transfers, %d in the ledger", what, len(acked), found)
		}
	}
	var listings int
	if err := conn.QueryRow(ctx, `select count(*) from public.properties where id = any($1::uuid[])`, l.listings).Scan(&listings); err != nil {
		t.Fatal(err)
	}
	if listings != len(l.listings) {
		t.Errorf("%d acknowledged listings, %d in properties", len(l.listings), listings)
	}

	// Each currency sums to zero across all wallets, and each wallet's
	// balance is its credits minus its debits.
	rows, err := conn.Query(ctx, `select currency, sum(balance)::bigint from public.wallets group by currency having sum(balance) <> 0`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var cur string
		var sum int64
		_ = rows.Scan(&cur, &sum)
		t.Errorf("%s wallets sum to %d, want 0", cur, sum)
	}
	rows.Close()
	var drifted int
	if err := conn.QueryRow(ctx, `
		select count(*) from public.wallets w
		 where w.balance <> coalesce((select sum(amount) from public.wallet_transfers where credit_wallet_id = w.id), 0)
		                 - coalesce((select sum(amount) from public.wallet_transfers where debit_wallet_id = w.id), 0)`).Scan(&drifted); err != nil {
		t.Fatal(err)
	}
	if drifted != 0 {
		t.Errorf("%d wallets' balances differ from their ledger entries", drifted)
	}
}

// stopAndCheckCleanup ends devstack the way the harness does (stdin
// closes) and checks it stopped promptly, restarted nothing on the way out
// and dropped its database.
func (s *ephemeralStack) stopAndCheckCleanup(t *testing.T) {
	t.Helper()
	children := map[string]int{}
	for _, name := range []string{"gateway", "rest", "rpc", "authsvc", "realtime", "storage", "devmail"} {
		children[name] = s.childPID(t, name)
	}
	running := func() (names []string) {
		for name, pid := range children {
			// A stopped child is gone once devstack has reaped it.
			if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid))); err == nil {
				names = append(names, name)
			}
		}
		return names
	}
	began := time.Now()
	_ = s.stdin.Close()
	for len(running()) > 0 && time.Since(began) < 20*time.Second {
		time.Sleep(20 * time.Millisecond)
	}
	servicesGone := time.Since(began)
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		t.Fatal("devstack did not stop within 20 s of its stdin closing")
	}
	t.Logf("after stdin closed: services gone in %v, devstack (database dropped) in %v",
		servicesGone.Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("devstack exited with %d", code)
	}
	if names := running(); len(names) > 0 {
		t.Errorf("%v still run after devstack stopped", names)
	}
	log := s.stderr.String()
	if i := strings.LastIndex(log, "stopping..."); i < 0 {
		t.Error(`devstack did not say "stopping..."`)
	} else if strings.Contains(log[i:], "restarting") {
		t.Error("a service was restarted during shutdown")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.adminURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	cfg, err := pgx.ParseConfig(s.databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	var left bool
	if err := conn.QueryRow(ctx, `select exists (select 1 from pg_database where datname = $1)`, cfg.Database).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left {
		t.Errorf("the stack's database %s was not dropped", cfg.Database)
	}
}

// lockedBuffer is an io.Writer safe to read while a process writes to it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
