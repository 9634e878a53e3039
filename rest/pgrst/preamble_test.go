package pgrst

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/rest/pgrst/exec"
)

func TestPreambleQuery(t *testing.T) {
	t.Parallel()
	base := Preamble{
		SearchPath: `"public", "extensions"`,
		Role:       "anon",
		Claims:     []byte(`{"role":"anon"}`),
		Method:     "GET",
		Path:       "/properties",
		Headers:    [][2]string{{"Accept", "application/json"}, {"Cookie", "theme=dark"}},
	}
	request := [][2]string{
		{"search_path", `"public", "extensions"`},
		{"role", "anon"},
		{"request.jwt.claims", `{"role":"anon"}`},
		{"request.method", "GET"},
		{"request.path", "/properties"},
		{"request.headers", `{"accept":"application/json","cookie":"theme=dark"}`},
		{"request.cookies", `{"theme":"dark"}`},
	}
	with := func(extra ...[2]string) [][2]string { return append(append([][2]string{}, request...), extra...) }
	tests := []struct {
		name   string
		change func(p *Preamble)
		want   [][2]string
	}{
		{"the request alone", func(*Preamble) {}, request},
		{"read-only last", func(p *Preamble) { p.ReadOnly = true }, with(exec.ReadOnlySetting)},
		{
			"role settings, then the timezone, then the extra ones, then read-only",
			func(p *Preamble) {
				p.RoleSettings = [][2]string{{"statement_timeout", "3s"}}
				p.Timezone = "Africa/Nairobi"
				p.Extra = [][2]string{{"work_mem", "8MB"}}
				p.ReadOnly = true
			},
			with([2]string{"statement_timeout", "3s"}, [2]string{"timezone", "Africa/Nairobi"}, [2]string{"work_mem", "8MB"}, exec.ReadOnlySetting),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := base
			tt.change(&p)
			q := p.Query()
			var got [][2]string
			for i := 0; i+1 < len(q.Params); i += 2 {
				got = append(got, [2]string{string(q.Params[i]), string(q.Params[i+1])})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("settings\n got %q\nwant %q", got, tt.want)
			}
			if n := strings.Count(q.SQL, "set_config("); n != len(tt.want) {
				t.Errorf("%d set_config calls for %d settings: %s", n, len(tt.want), q.SQL)
			}
		})
	}
}
