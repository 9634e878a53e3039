package logging

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
)

func TestParseLevel(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]slog.Level{
		"debug": slog.LevelDebug, "WARN": slog.LevelWarn, "warning": slog.LevelWarn,
		"error": slog.LevelError, "": slog.LevelInfo, "loud": slog.LevelInfo,
	} {
		if got := ParseLevel(in); got != want {
			t.Errorf("ParseLevel(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestNewWritesJSONWithService(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := New(&buf, "rest", "warn")
	log.Info("hidden")
	log.Warn("shown", "status", 503)
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("want exactly one JSON line, got %q: %v", buf.String(), err)
	}
	if line["service"] != "rest" || line["msg"] != "shown" || line["status"] != float64(503) {
		t.Errorf("unexpected line %v", line)
	}
}
