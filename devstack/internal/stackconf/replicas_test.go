package stackconf

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestWithReplicas(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		n       int
		want    map[string][]int // Of(service) for each replicated service
		wantErr bool
	}{
		{name: "one replica keeps make run's ports", n: 1, want: map[string][]int{
			"rest": {3000}, "rpc": {3001}, "authsvc": {9999}, "realtime": {4000}, "storage": {5000}}},
		{name: "two replicas, ten apart", n: 2, want: map[string][]int{
			"rest": {3000, 3010}, "rpc": {3001, 3011}, "authsvc": {9999, 10009}, "realtime": {4000, 4010}, "storage": {5000, 5010}}},
		{name: "three replicas", n: 3, want: map[string][]int{
			"rest": {3000, 3010, 3020}, "rpc": {3001, 3011, 3021}, "authsvc": {9999, 10009, 10019},
			"realtime": {4000, 4010, 4020}, "storage": {5000, 5010, 5020}}},
		{name: "zero is refused", n: 0, wantErr: true},
		{name: "negative is refused", n: -2, wantErr: true},
		{name: "more than MaxReplicas is refused", n: MaxReplicas + 1, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := DefaultPorts.WithReplicas(tt.n)
			if (err != nil) != tt.wantErr {
				t.Fatalf("WithReplicas(%d) err = %v, want error %v", tt.n, err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			for svc, want := range tt.want {
				if got := p.Of(svc); !slices.Equal(got, want) {
					t.Errorf("Of(%q) = %v, want %v", svc, got, want)
				}
			}
			if p.Gateway != 54321 || p.MailSMTP != 54325 || p.MailWeb != 54324 {
				t.Errorf("the single services moved: %+v", p)
			}
		})
	}
	if DefaultPorts.More != nil {
		t.Error("WithReplicas changed DefaultPorts")
	}
}

// Every count devstack accepts gives every child a port of its own, none of
// them the embedded database's.
func TestFixedReplicaPortsNeverCollide(t *testing.T) {
	t.Parallel()
	for n := 1; n <= MaxReplicas; n++ {
		p, err := DefaultPorts.WithReplicas(n)
		if err != nil {
			t.Fatal(err)
		}
		assertDistinct(t, p, n, 54322)
	}
}

// assertDistinct checks that p has n ports per replicated service and that
// no port is used twice (or is one of also).
func assertDistinct(t *testing.T, p Ports, n int, also ...int) {
	t.Helper()
	seen := map[int]string{}
	for _, port := range also {
		seen[port] = "reserved"
	}
	use := func(who string, port int) {
		if port <= 0 {
			t.Errorf("%s has port %d", who, port)
		}
		if prev, ok := seen[port]; ok {
			t.Errorf("n=%d: %s and %s share port %d", n, prev, who, port)
		}
		seen[port] = who
	}
	use("gateway", p.Gateway)
	use("devmail smtp", p.MailSMTP)
	use("devmail web", p.MailWeb)
	for _, svc := range Replicated {
		ports := p.Of(svc)
		if len(ports) != n {
			t.Errorf("%s has %d replicas, want %d", svc, len(ports), n)
		}
		for _, port := range ports {
			use(svc, port)
		}
	}
}

// seq is a fake free-port source that hands out the given ports in turn.
func seq(ports ...int) func() (int, error) {
	i := 0
	return func() (int, error) {
		if i == len(ports) {
			return 0, errors.New("out of fake ports")
		}
		i++
		return ports[i-1], nil
	}
}

func TestPickPorts(t *testing.T) {
	t.Parallel()
	counter := func() func() (int, error) {
		next := 40000
		return func() (int, error) { next++; return next, nil }
	}
	// A source that repeats each port once, the way the kernel may hand a
	// just-released port out again.
	repeating := func() func() (int, error) {
		next, again := 41000, false
		return func() (int, error) {
			if again = !again; again {
				next++
			}
			return next, nil
		}
	}
	failing := errors.New("no sockets")
	tests := []struct {
		name    string
		n       int
		free    func() (int, error)
		want    Ports // with More; nil More checked as nil
		wantErr string
	}{
		{name: "one replica: eight distinct ports, single services first", n: 1, free: counter(),
			want: Ports{Gateway: 40001, MailSMTP: 40002, MailWeb: 40003, Rest: 40004, RPC: 40005, Auth: 40006, Realtime: 40007, Storage: 40008}},
		{name: "two replicas: each service's ports drawn together", n: 2, free: counter(),
			want: Ports{Gateway: 40001, MailSMTP: 40002, MailWeb: 40003, Rest: 40004, RPC: 40006, Auth: 40008, Realtime: 40010, Storage: 40012,
				More: map[string][]int{"rest": {40005}, "rpc": {40007}, "authsvc": {40009}, "realtime": {40011}, "storage": {40013}}}},
		{name: "repeated draws are drawn again", n: 1, free: repeating(),
			want: Ports{Gateway: 41001, MailSMTP: 41002, MailWeb: 41003, Rest: 41004, RPC: 41005, Auth: 41006, Realtime: 41007, Storage: 41008}},
		{name: "a zero port is drawn again", n: 1, free: seq(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10),
			want: Ports{Gateway: 1, MailSMTP: 2, MailWeb: 3, Rest: 4, RPC: 5, Auth: 6, Realtime: 7, Storage: 8}},
		{name: "a source stuck on one port gives up", n: 2, free: func() (int, error) { return 5555, nil }, wantErr: "distinct free ports"},
		{name: "the source's error is returned", n: 1, free: func() (int, error) { return 0, failing }, wantErr: "no sockets"},
		{name: "a bad count is refused before drawing", n: 0, free: func() (int, error) { panic("drawn") }, wantErr: "replicas: 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := PickPorts(tt.n, tt.free)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !equalPorts(got, tt.want) {
				t.Errorf("PickPorts(%d) = %+v, want %+v", tt.n, got, tt.want)
			}
			assertDistinct(t, got, tt.n)
		})
	}
	for _, n := range []int{1, 2, 5, MaxReplicas} {
		got, err := PickPorts(n, counter())
		if err != nil {
			t.Fatal(err)
		}
		assertDistinct(t, got, n)
	}
}

func equalPorts(a, b Ports) bool {
	if (a.More == nil) != (b.More == nil) || len(a.More) != len(b.More) {
		return false
	}
	for k, v := range a.More {
		if !slices.Equal(v, b.More[k]) {
			return false
		}
	}
	return a.Gateway == b.Gateway && a.MailSMTP == b.MailSMTP && a.MailWeb == b.MailWeb &&
		a.Rest == b.Rest && a.RPC == b.RPC && a.Auth == b.Auth && a.Realtime == b.Realtime && a.Storage == b.Storage
}

// replicaStack is a stack of n replicas on make run's ports.
func replicaStack(t *testing.T, n int) Stack {
	t.Helper()
	p, err := DefaultPorts.WithReplicas(n)
	if err != nil {
		t.Fatal(err)
	}
	return Stack{Root: "/repo", BinDir: "/repo/bin", DatabaseURL: "postgres://postgres@127.0.0.1:5432/db", Ports: p, StorageDir: "/data/storage"}
}

func TestReplicaChildren(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		n         int
		wantNames []string
	}{
		{"one replica: today's children and names", 1,
			[]string{"devmail", "darajasim", "rest", "rpc", "authsvc", "realtime", "storage", "payments", "gateway"}},
		{"two replicas: each its own child, named name-k", 2,
			[]string{"devmail", "darajasim", "rest-1", "rest-2", "rpc-1", "rpc-2", "authsvc-1", "authsvc-2",
				"realtime-1", "realtime-2", "storage-1", "storage-2", "payments", "gateway"}},
		{"three replicas", 3,
			[]string{"devmail", "darajasim", "rest-1", "rest-2", "rest-3", "rpc-1", "rpc-2", "rpc-3", "authsvc-1", "authsvc-2", "authsvc-3",
				"realtime-1", "realtime-2", "realtime-3", "storage-1", "storage-2", "storage-3", "payments", "gateway"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var names []string
			binaries := map[string]bool{}
			for _, s := range replicaStack(t, tt.n).Services() {
				names = append(names, s.Name)
				binaries[s.Binary] = true
			}
			if !slices.Equal(names, tt.wantNames) {
				t.Errorf("children = %v, want %v", names, tt.wantNames)
			}
			if want := []string{"/repo/bin/authsvc", "/repo/bin/darajasim", "/repo/bin/devmail", "/repo/bin/gateway", "/repo/bin/payments", "/repo/bin/realtime", "/repo/bin/rest", "/repo/bin/rpc", "/repo/bin/storage"}; !slices.Equal(slices.Sorted(maps.Keys(binaries)), want) {
				t.Errorf("binaries = %v, want %v", slices.Sorted(maps.Keys(binaries)), want)
			}
		})
	}
}

func TestReplicaEnvironment(t *testing.T) {
	t.Parallel()
	byName := map[string]struct {
		env    []string
		health string
	}{}
	for _, s := range replicaStack(t, 2).Services(
		"KEJANEST_AUTHSVC_GOTRUE_RATE_LIMIT_OTP=3/1h",
		"KEJANEST_REST_PGRST_DB_POOL=4",
	) {
		byName[s.Name] = struct {
			env    []string
			health string
		}{s.Env, s.HealthURL}
	}
	tests := []struct{ child, key, want string }{
		// Each replica listens on its own port ...
		{"rest-1", "PGRST_SERVER_PORT", "3000"},
		{"rest-2", "PGRST_SERVER_PORT", "3010"},
		{"rpc-1", "PGRST_SERVER_PORT", "3001"},
		{"rpc-2", "PGRST_SERVER_PORT", "3011"},
		{"authsvc-1", "PORT", "9999"},
		{"authsvc-2", "PORT", "10009"},
		{"realtime-1", "PORT", "4000"},
		{"realtime-2", "PORT", "4010"},
		{"storage-1", "SERVER_PORT", "5000"},
		{"storage-2", "SERVER_PORT", "5010"},
		// ... on the one database ...
		{"rest-2", "PGRST_DB_URI", "postgres://authenticator@127.0.0.1:5432/db"},
		{"authsvc-2", "DATABASE_URL", "postgres://supabase_auth_admin@127.0.0.1:5432/db"},
		{"realtime-2", "DATABASE_URL", "postgres://authenticator@127.0.0.1:5432/db"},
		// ... and, for storage, the one root on disk.
		{"storage-1", "FILE_STORAGE_BACKEND_PATH", "/data/storage"},
		{"storage-2", "FILE_STORAGE_BACKEND_PATH", "/data/storage"},
		// Everything else about a service is the same for its replicas:
		// the mailbox, the public URL, the overrides.
		{"authsvc-2", "GOTRUE_SMTP_PORT", "54325"},
		{"authsvc-2", "API_EXTERNAL_URL", "http://127.0.0.1:54321"},
		{"authsvc-1", "GOTRUE_RATE_LIMIT_OTP", "3/1h"},
		{"authsvc-2", "GOTRUE_RATE_LIMIT_OTP", "3/1h"},
		{"rest-1", "PGRST_DB_POOL", "4"},
		{"rest-2", "PGRST_DB_POOL", "4"},
		{"rpc-2", "PGRST_DB_POOL", ""},
		{"rest-2", "GOTRUE_RATE_LIMIT_OTP", ""},
		// The gateway lists every replica, in order.
		{"gateway", "REST_URL", "http://127.0.0.1:3000,http://127.0.0.1:3010"},
		{"gateway", "RPC_URL", "http://127.0.0.1:3001,http://127.0.0.1:3011"},
		{"gateway", "AUTH_URL", "http://127.0.0.1:9999,http://127.0.0.1:10009"},
		{"gateway", "REALTIME_URL", "http://127.0.0.1:4000,http://127.0.0.1:4010"},
		{"gateway", "STORAGE_URL", "http://127.0.0.1:5000,http://127.0.0.1:5010"},
	}
	for _, tc := range tests {
		child, ok := byName[tc.child]
		if !ok {
			t.Fatalf("no child %s", tc.child)
		}
		if v := lastValue(child.env, tc.key); v != tc.want {
			t.Errorf("%s sees %s=%q, want %q", tc.child, tc.key, v, tc.want)
		}
	}
	health := map[string]string{
		"rest-2": "http://127.0.0.1:3010/ready", "rpc-2": "http://127.0.0.1:3011/ready",
		"authsvc-2": "http://127.0.0.1:10009/health", "realtime-2": "http://127.0.0.1:4010/api/health",
		"storage-2": "http://127.0.0.1:5010/status", "gateway": "http://127.0.0.1:54321/health",
	}
	for child, want := range health {
		if got := byName[child].health; got != want {
			t.Errorf("%s is waited for at %s, want %s", child, got, want)
		}
	}
}

func TestInstances(t *testing.T) {
	t.Parallel()
	st := replicaStack(t, 2)
	tests := []struct {
		service string
		want    []Instance
	}{
		{"rest", []Instance{{"rest", "rest-1", 3000}, {"rest", "rest-2", 3010}}},
		{"authsvc", []Instance{{"authsvc", "authsvc-1", 9999}, {"authsvc", "authsvc-2", 10009}}},
		{"gateway", []Instance{{"gateway", "gateway", 54321}}},
		{"devmail", []Instance{{"devmail", "devmail", 54324}}},
		{"unknown", []Instance{}},
	}
	for _, tt := range tests {
		if got := st.Instances(tt.service); !slices.Equal(got, tt.want) {
			t.Errorf("Instances(%q) = %v, want %v", tt.service, got, tt.want)
		}
	}
}
