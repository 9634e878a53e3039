package lifecycle

import (
	"runtime/debug"
	"testing"
)

// TestDefaultGCPercent checks that the default applies only when GOGC is
// not set. It changes the process's collector target, so it restores it
// and does not run in parallel.
func TestDefaultGCPercent(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	tests := []struct {
		name    string
		env     map[string]string
		wantSet bool
		want    int
	}{
		{"GOGC unset", nil, true, 400},
		{"GOGC set by the operator", map[string]string{"GOGC": "50"}, false, 100},
		{"GOGC set empty", map[string]string{"GOGC": ""}, false, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			lookup := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
			if got := defaultGCPercent(lookup, 400); got != tt.wantSet {
				t.Errorf("defaultGCPercent = %v, want %v", got, tt.wantSet)
			}
			if got := debug.SetGCPercent(100); got != tt.want {
				t.Errorf("collector target = %d, want %d", got, tt.want)
			}
		})
	}
}
