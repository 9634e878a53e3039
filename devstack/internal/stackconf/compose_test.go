package stackconf

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// No Docker engine runs here, so docker-compose.yml is checked by reading it:
// every service module in go.work has a compose service with a port, a health
// check on the path devstack waits for, and every environment variable that
// devstack gives the same service locally (values differ; names must not).

type composeFile struct {
	Services map[string]composeService `yaml:"services"`
}

type composeService struct {
	Build       any               `yaml:"build"`
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

func TestComposeCoversEveryService(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	raw, err := os.ReadFile(filepath.Join(root, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var cf composeFile
	if err := yaml.Unmarshal(raw, &cf); err != nil {
		t.Fatalf("docker-compose.yml does not parse: %v", err)
	}
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
		t.Run(mod, func(t *testing.T) {
			svc, ok := cf.Services[mod]
			if !ok {
				t.Fatalf("go.work module %s has no compose service", mod)
			}
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
			for _, portVar := range []string{"PGRST_SERVER_PORT", "PORT", "SERVER_PORT"} {
				if p, ok := svc.Environment[portVar]; ok && !contains(svc.Expose, p) {
					t.Errorf("%s listens on %s but exposes %v", mod, p, svc.Expose)
				}
			}
		})
	}
	for _, infra := range []string{"db", "minio", "migrate"} {
		if _, ok := cf.Services[infra]; !ok {
			t.Errorf("compose lacks %s", infra)
		}
	}
	if _, ok := cf.Services["gateway"].DependsOn["rest"]; !ok {
		t.Error("gateway must wait for the services")
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
	raw, err := os.ReadFile(filepath.Join(root, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var cf struct {
		Services map[string]struct {
			Build struct {
				Args map[string]string `yaml:"args"`
			} `yaml:"build"`
			Environment map[string]string `yaml:"environment"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(raw, &cf); err != nil {
		t.Fatal(err)
	}
	svc, ok := cf.Services["sweeper"]
	if !ok {
		t.Fatal("compose has no sweeper service: the expiry sweeps would run only under make run")
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
