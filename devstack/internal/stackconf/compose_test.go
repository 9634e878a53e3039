package stackconf

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// No Docker engine runs here, so docker-compose.yml is checked by reading it:
// every service module in go.work has a compose service (or, for the
// services devstack replicates, named replicas <module>-1 … <module>-N) with
// a port, a health check on the path devstack waits for, and every
// environment variable that devstack gives the same service locally (values
// differ; names must not); and the gateway lists every replica.

type composeFile struct {
	Services map[string]composeService `yaml:"services"`
}

type composeService struct {
	Build *struct {
		Args map[string]string `yaml:"args"`
	} `yaml:"build"`
	Image       string            `yaml:"image"`
	Environment map[string]string `yaml:"environment"`
	Ports       []string          `yaml:"ports"`
	Expose      []string          `yaml:"expose"`
	Healthcheck struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
	DependsOn map[string]any `yaml:"depends_on"`
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, _ := os.Getwd()
	for d := dir; filepath.Dir(d) != d; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.work")); err == nil {
			return d
		}
	}
	t.Fatal("go.work not found")
	return ""
}

func workModules(t *testing.T, root string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	var mods []string
	for _, m := range regexp.MustCompile(`(?m)^\s*(?:use\s+)?\./([A-Za-z0-9_/-]+)\s*$`).FindAllStringSubmatch(string(b), -1) {
		mods = append(mods, m[1])
	}
	if len(mods) < 6 {
		t.Fatalf("parsed only %v from go.work", mods)
	}
	return mods
}

// readCompose parses the repository's docker-compose.yml.
func readCompose(t *testing.T, root string) composeFile {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var cf composeFile
	if err := yaml.Unmarshal(raw, &cf); err != nil {
		t.Fatalf("docker-compose.yml does not parse: %v", err)
	}
	return cf
}

func TestComposeCoversEveryService(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	cf := readCompose(t, root)
	local := Stack{Root: root, BinDir: "bin", DatabaseURL: "postgres://postgres@127.0.0.1:1/db", Ports: DefaultPorts}
	byName := map[string][]string{}
	health := map[string]string{}
	for _, s := range local.Services() {
		byName[s.Name] = s.Env
		health[s.Name] = s.HealthURL[strings.Index(s.HealthURL[len("http://"):], "/")+len("http://"):]
	}
	// Modules that are libraries or local tooling, not deployed services.
	notServices := map[string]bool{"platform": true, "devstack": true, "sql/tests": true}

	for _, mod := range workModules(t, root) {
		if notServices[mod] {
			continue
		}
		names := composeReplicas(t, cf, mod)
		if len(names) == 0 {
			t.Errorf("go.work module %s has no compose service", mod)
		}
		for _, name := range names {
			t.Run(name, func(t *testing.T) { checkComposeService(t, cf.Services[name], mod, byName, health) })
		}
	}
	for _, infra := range []string{"db", "minio", "migrate"} {
		if _, ok := cf.Services[infra]; !ok {
			t.Errorf("compose lacks %s", infra)
		}
	}
}

// checkComposeService checks one compose service (or replica) of module mod
// against what devstack gives the module locally.
func checkComposeService(t *testing.T, svc composeService, mod string, byName map[string][]string, health map[string]string) {
	t.Helper()
	if svc.Build == nil {
		t.Errorf("%s is not built from this repository", mod)
	}
	if len(svc.Ports) == 0 && len(svc.Expose) == 0 {
		t.Errorf("%s publishes no port", mod)
	}
	test := strings.Join(svc.Healthcheck.Test, " ")
	if test == "" {
		t.Fatalf("%s has no health check", mod)
	}
	if h := health[mod]; h == "" || !strings.Contains(test, h) {
		t.Errorf("%s health check %q does not probe %q", mod, test, h)
	}
	env, ok := byName[mod]
	if !ok {
		t.Fatalf("devstack does not start %s", mod)
	}
	for _, kv := range env {
		name := kv[:strings.IndexByte(kv, '=')]
		if _, ok := svc.Environment[name]; !ok {
			t.Errorf("%s: compose lacks %s, which the service is given locally", mod, name)
		}
	}
	if svc.Environment["KEJANEST_ENV"] != "production" {
		t.Errorf("%s does not run in production mode", mod)
	}
	// The port the service listens on is the one it exposes.
	if p := listenPort(svc); p != "" && !contains(svc.Expose, p) {
		t.Errorf("%s listens on %s but exposes %v", mod, p, svc.Expose)
	}
}

// listenPort is the port a compose service's own variables make it listen on.
func listenPort(svc composeService) string {
	for _, portVar := range []string{"PGRST_SERVER_PORT", "PORT", "SERVER_PORT"} {
		if p, ok := svc.Environment[portVar]; ok {
			return p
		}
	}
	return ""
}

// composeReplicas names the compose services of module mod: [mod], or its
// named replicas mod-1 … mod-N, numbered from 1 without gaps. A module with
// both, or with gaps, fails the test.
func composeReplicas(t *testing.T, cf composeFile, mod string) []string {
	t.Helper()
	var numbered []int
	for name := range cf.Services {
		if k, ok := strings.CutPrefix(name, mod+"-"); ok {
			if n, err := strconv.Atoi(k); err == nil {
				numbered = append(numbered, n)
			}
		}
	}
	_, single := cf.Services[mod]
	switch {
	case single && len(numbered) > 0:
		t.Errorf("compose has both %s and its numbered replicas", mod)
		return nil
	case single:
		return []string{mod}
	}
	slices.Sort(numbered)
	var names []string
	for i, n := range numbered {
		if n != i+1 {
			t.Errorf("%s's replicas are numbered %v, want 1 to %d", mod, numbered, len(numbered))
			return nil
		}
		names = append(names, fmt.Sprintf("%s-%d", mod, n))
	}
	return names
}

// The gateway's upstream lists are what makes replicas replicas: each list
// must name every replica of its service, by its compose DNS name and the
// port it listens on, as devstack's gateway lists every local replica. The
// compose file shows the scale-out shape: every service devstack can
// replicate runs as the same number (at least 2) of named replicas, and the
// gateway waits for each.
func TestComposeGatewayListsEveryReplica(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	cf := readCompose(t, root)
	gateway, ok := cf.Services["gateway"]
	if !ok {
		t.Fatal("compose has no gateway")
	}
	// Which gateway variable points at which service, read from devstack:
	// with two local replicas, each *_URL lists the ports of one service.
	ports, err := DefaultPorts.WithReplicas(2)
	if err != nil {
		t.Fatal(err)
	}
	local := Stack{Root: root, BinDir: "bin", DatabaseURL: "postgres://postgres@127.0.0.1:1/db", Ports: ports}
	var gatewayEnv []string
	for _, s := range local.Services() {
		if s.Name == "gateway" {
			gatewayEnv = s.Env
		}
	}
	upstreams := map[string]string{} // gateway variable -> service
	for _, svc := range Replicated {
		var urls []string
		for _, in := range local.Instances(svc) {
			urls = append(urls, fmt.Sprintf("http://127.0.0.1:%d", in.Port))
		}
		for _, kv := range gatewayEnv {
			if k, v, _ := strings.Cut(kv, "="); v == strings.Join(urls, ",") {
				upstreams[k] = svc
			}
		}
	}
	if len(upstreams) != len(Replicated) {
		t.Fatalf("found the gateway's variables for %v only, want one for each of %v", upstreams, Replicated)
	}

	count := 0
	for variable, svc := range upstreams {
		names := composeReplicas(t, cf, svc)
		if count == 0 {
			count = len(names)
		}
		if len(names) < 2 || len(names) != count {
			t.Errorf("%s runs as %v: want the same number of named replicas (at least 2) as the other services", svc, names)
		}
		var want []string
		for _, name := range names {
			want = append(want, fmt.Sprintf("http://%s:%s", name, listenPort(cf.Services[name])))
			if _, ok := gateway.DependsOn[name]; !ok {
				t.Errorf("the gateway does not wait for %s", name)
			}
		}
		if got := gateway.Environment[variable]; got != strings.Join(want, ",") {
			t.Errorf("gateway %s = %q, want %q (every replica of %s)", variable, got, strings.Join(want, ","), svc)
		}
		// Replicas on different hosts share no disk: their objects must be
		// in the one S3 store.
		if svc == "storage" && len(names) > 1 {
			for _, name := range names {
				if b := cf.Services[name].Environment["STORAGE_BACKEND"]; b != "s3" {
					t.Errorf("%s uses STORAGE_BACKEND=%q; replicas on several hosts need s3", name, b)
				}
			}
		}
	}
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// Production runs the expiry sweeps too: a sweeper service, built from the
// command the Dockerfile names for it, connecting as the authenticator (the
// sweeps switch to service_role themselves, as every API call does).
func TestComposeSchedulesTheSweeps(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	cf := readCompose(t, root)
	svc, ok := cf.Services["sweeper"]
	if !ok {
		t.Fatal("compose has no sweeper service: the expiry sweeps would run only under make run")
	}
	if svc.Build == nil {
		t.Fatal("sweeper is not built from this repository")
	}
	if svc.Build.Args["SERVICE"] != "sweeper" {
		t.Errorf("sweeper is built as %q", svc.Build.Args["SERVICE"])
	}
	if !strings.HasPrefix(svc.Environment["DATABASE_URL"], "postgres://authenticator:") {
		t.Errorf("sweeper connects as %q, want the authenticator login", svc.Environment["DATABASE_URL"])
	}
	dockerfile, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`sweeper\) pkg=\./(\S+) ;;`).FindSubmatch(dockerfile)
	if m == nil {
		t.Fatal("the Dockerfile does not say which package builds the sweeper")
	}
	if _, err := os.Stat(filepath.Join(root, string(m[1]), "main.go")); err != nil {
		t.Errorf("the Dockerfile builds the sweeper from %s: %v", m[1], err)
	}
}
