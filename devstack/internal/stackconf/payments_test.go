package stackconf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// payments talks to the Daraja simulator, and Safaricom's callback comes
// back through the gateway, as it would in production; the gateway sends
// /functions/v1 to payments.
func TestPaymentsAndSimulator(t *testing.T) {
	t.Parallel()
	st := replicaStack(t, 2)
	byName := map[string][]string{}
	health := map[string]string{}
	for _, s := range st.Services() {
		byName[s.Name] = s.Env
		health[s.Name] = s.HealthURL
	}
	tests := []struct{ child, key, want string }{
		{"payments", "PORT", "8081"},
		{"payments", "DATABASE_URL", "postgres://authenticator@127.0.0.1:5432/db"},
		{"payments", "MPESA_API_BASE_URL", "http://127.0.0.1:8089"},
		{"payments", "MPESA_CALLBACK_BASE_URL", "http://127.0.0.1:54321"},
		{"darajasim", "DARAJASIM_ADDR", "127.0.0.1:8089"},
		{"gateway", "FUNCTIONS_URL", "http://127.0.0.1:8081"},
	}
	for _, tc := range tests {
		if v := lastValue(byName[tc.child], tc.key); v != tc.want {
			t.Errorf("%s sees %s=%q, want %q", tc.child, tc.key, v, tc.want)
		}
	}
	if health["payments"] != "http://127.0.0.1:8081/ready" || health["darajasim"] != "http://127.0.0.1:8089/health" {
		t.Errorf("health URLs %q %q", health["payments"], health["darajasim"])
	}
	// A test stack draws their ports with the others, all distinct.
	next := 42000
	p, err := PickPorts(3, func() (int, error) { next++; return next, nil })
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{p.Gateway: true, p.MailSMTP: true, p.MailWeb: true}
	for _, svc := range Replicated {
		for _, port := range p.Of(svc) {
			seen[port] = true
		}
	}
	if p.Payments == 0 || p.DarajaSim == 0 || seen[p.Payments] || seen[p.DarajaSim] || p.Payments == p.DarajaSim {
		t.Errorf("payments %d and simulator %d collide with %v", p.Payments, p.DarajaSim, seen)
	}
}

// Production runs payments as replicas behind the gateway; the simulator
// only starts when asked for (a compose profile), never by default.
func TestComposePayments(t *testing.T) {
	t.Parallel()
	cf := readCompose(t, repoRoot(t))
	gw := cf.Services["gateway"]
	names := composeReplicas(t, cf, "payments")
	if len(names) < 2 {
		t.Fatalf("payments runs as %v, want named replicas", names)
	}
	var urls []string
	for _, n := range names {
		urls = append(urls, "http://"+n+":"+listenPort(cf.Services[n]))
		if _, ok := gw.DependsOn[n]; !ok {
			t.Errorf("the gateway does not wait for %s", n)
		}
		if !strings.HasPrefix(cf.Services[n].Environment["MPESA_CALLBACK_BASE_URL"], "${SITE_URL") {
			t.Errorf("%s's callbacks do not go to the public site", n)
		}
	}
	if got := gw.Environment["FUNCTIONS_URL"]; got != strings.Join(urls, ",") {
		t.Errorf("gateway FUNCTIONS_URL = %q, want %q", got, strings.Join(urls, ","))
	}
	raw := readComposeRaw(t)
	if !strings.Contains(raw, "darajasim:") || !strings.Contains(raw, `profiles: ["simulator"]`) {
		t.Error("the Daraja simulator is missing from compose, or would start by default")
	}
}

// readComposeRaw is docker-compose.yml's text.
func readComposeRaw(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
