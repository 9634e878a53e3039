package accesslog

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestLog(t *testing.T) {
	entry := Entry{
		RequestID: "req-1", Method: "GET", Path: "/rest/v1/properties", Service: "rest", Role: "anon",
		Status: 200, Duration: 1500 * time.Microsecond, Bytes: 12, RemoteIP: "10.0.0.1", UserAgent: "supabase-js",
	}
	long := entry
	long.Path = "/" + strings.Repeat("a", 2*maxPathLen)
	tests := []struct {
		name  string
		level slog.Level
		entry Entry
		want  map[string]any // nil: no line
	}{
		{"every field", slog.LevelInfo, entry, map[string]any{
			"level": "INFO", "msg": "request", "request_id": "req-1", "method": "GET", "path": "/rest/v1/properties",
			"upstream": "rest", "role": "anon", "status": 200.0, "duration_ms": 1.5, "bytes": 12.0,
			"remote_ip": "10.0.0.1", "user_agent": "supabase-js",
		}},
		{"long path cut", slog.LevelInfo, long, map[string]any{"path": long.Path[:maxPathLen]}},
		{"below the level", slog.LevelWarn, entry, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			l := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: tt.level})).With("service", "gateway")
			Log(context.Background(), l, tt.entry)
			if tt.want == nil {
				if buf.Len() != 0 {
					t.Fatalf("logged %q below the level", buf.String())
				}
				return
			}
			if n := strings.Count(buf.String(), "\n"); n != 1 {
				t.Fatalf("got %d lines, want 1: %q", n, buf.String())
			}
			var got map[string]any
			if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
				t.Fatalf("not JSON: %v: %q", err, buf.String())
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %v, want %v", k, got[k], v)
				}
			}
			if got["service"] != "gateway" {
				t.Errorf("the logger's own attributes are lost: %v", got)
			}
			if _, ok := got["source"]; ok {
				t.Errorf("a source position was logged: %v", got["source"])
			}
			if ts, _ := got["time"].(string); ts == "" {
				t.Errorf("no time: %v", got)
			}
		})
	}
}

func BenchmarkLog(b *testing.B) {
	l := slog.New(slog.NewJSONHandler(io.Discard, nil))
	e := Entry{RequestID: "0f7c2a8e-9b1d-4e3a-8c55-7d2f1e6b9a40", Method: "GET", Path: "/rest/v1/properties", Service: "rest",
		Role: "anon", Status: 200, Duration: time.Millisecond, Bytes: 12000, RemoteIP: "127.0.0.1", UserAgent: "Mozilla/5.0"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		Log(ctx, l, e)
	}
}
