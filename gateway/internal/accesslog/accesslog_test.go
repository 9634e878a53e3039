package accesslog

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"
)

// slogLine is the line slog's JSON handler writes for e, as
// platform/logging builds it: the reference Logger's lines must match.
func slogLine(t testing.TB, e Entry) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	l := slog.New(slog.NewJSONHandler(&buf, nil)).With("service", "gateway")
	l.LogAttrs(context.Background(), slog.LevelInfo, "request",
		slog.String("request_id", e.RequestID), slog.String("method", e.Method), slog.String("path", e.Path),
		slog.String("upstream", e.Service), slog.String("role", e.Role), slog.Int("status", e.Status),
		slog.Float64("duration_ms", float64(e.Duration.Microseconds())/1000), slog.Int64("bytes", e.Bytes),
		slog.String("remote_ip", e.RemoteIP), slog.String("user_agent", e.UserAgent))
	return decodeLine(t, buf.Bytes())
}

// decodeLine parses one JSON line, without its time, which it checks is
// RFC 3339 and recent.
func decodeLine(t testing.TB, line []byte) map[string]any {
	t.Helper()
	if n := bytes.Count(line, []byte("\n")); n != 1 || line[len(line)-1] != '\n' {
		t.Fatalf("%d newlines, want one at the end: %q", n, line)
	}
	var got map[string]any
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatalf("not JSON: %v: %q", err, line)
	}
	ts, _ := got["time"].(string)
	when, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil || time.Since(when) > time.Minute || time.Since(when) < -time.Minute {
		t.Errorf("time %q: %v", ts, err)
	}
	delete(got, "time")
	return got
}

func TestLog(t *testing.T) {
	entry := Entry{
		RequestID: "req-1", Method: "GET", Path: "/rest/v1/properties", Service: "rest", Role: "anon",
		Status: 200, Duration: 1500 * time.Microsecond, Bytes: 12, RemoteIP: "10.0.0.1", UserAgent: "supabase-js",
	}
	long := entry
	long.Path = "/" + strings.Repeat("a", 2*maxPathLen)
	odd := entry
	odd.UserAgent, odd.Path = "tab\there \"quoted\" back\\slash \x01 \u2028 \xff ü", "/a\nb"
	tests := []struct {
		name  string
		level slog.Level
		entry Entry
		want  map[string]any // nil: no line
	}{
		{"every field", slog.LevelInfo, entry, map[string]any{
			"level": "INFO", "msg": "request", "service": "gateway", "request_id": "req-1", "method": "GET",
			"path": "/rest/v1/properties", "upstream": "rest", "role": "anon", "status": 200.0, "duration_ms": 1.5,
			"bytes": 12.0, "remote_ip": "10.0.0.1", "user_agent": "supabase-js",
		}},
		{"long path cut", slog.LevelInfo, long, map[string]any{"path": long.Path[:maxPathLen]}},
		{"escaped", slog.LevelInfo, odd, map[string]any{"user_agent": "tab\there \"quoted\" back\\slash \x01 \u2028 \ufffd ü", "path": "/a\nb"}},
		{"debug lets it through", slog.LevelDebug, entry, map[string]any{"request_id": "req-1"}},
		{"below the level", slog.LevelWarn, entry, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			NewLogger(&buf, "gateway", tt.level).Log(tt.entry)
			if tt.want == nil {
				if buf.Len() != 0 {
					t.Fatalf("logged %q below the level", buf.String())
				}
				return
			}
			got := decodeLine(t, buf.Bytes())
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %v, want %v", k, got[k], v)
				}
			}
			if len(got) != 13 {
				t.Errorf("%d fields besides the time, want 13: %v", len(got), got)
			}
		})
	}
}

// TestLogTime: the line's time is the entry's end, in slog's format, and
// the clock's when the entry has none (decodeLine checks that it is now).
func TestLogTime(t *testing.T) {
	tests := []struct {
		name string
		end  time.Time
		want string
	}{
		{"UTC", time.Date(2020, 5, 6, 7, 8, 9, 123456789, time.UTC), "2020-05-06T07:08:09.123Z"},
		{"with an offset", time.Date(2026, 11, 27, 13, 45, 0, 0, time.FixedZone("EAT", 3*3600)), "2026-11-27T13:45:00.000+03:00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			NewLogger(&buf, "gateway", slog.LevelInfo).Log(Entry{RequestID: "req-1", End: tt.end})
			var got struct{ Time string }
			if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
				t.Fatalf("not JSON: %v: %q", err, buf.Bytes())
			}
			if got.Time != tt.want {
				t.Errorf("time = %q, want %q", got.Time, tt.want)
			}
		})
	}
	var buf bytes.Buffer
	NewLogger(&buf, "gateway", slog.LevelInfo).Log(Entry{RequestID: "req-1"})
	decodeLine(t, buf.Bytes())
}

func TestNilLoggerWritesNothing(t *testing.T) {
	var l *Logger
	l.Log(Entry{RequestID: "req-1"}) // must not panic
}

// FuzzLog checks that whatever a request carries, its line is one line of
// JSON that says what slog's JSON handler would have said.
func FuzzLog(f *testing.F) {
	f.Add("req-1", "GET", "/rest/v1/properties", "anon", "10.0.0.1", "supabase-js", 200, int64(1500), int64(12))
	f.Add("\x00\x1f\x7f", "P\"OST", "/a\\b\u2029", "r\xc3", "::1", "ua\n\r\t\u2028", 599, int64(-1), int64(-5))
	f.Add("", "", "", "", "", "\xff\xfe\xed\xa0\x80", 0, int64(123456789), int64(1<<40))
	f.Fuzz(func(t *testing.T, id, method, path, role, ip, ua string, status int, us, n int64) {
		if len(path) > maxPathLen {
			path = path[:maxPathLen]
		}
		e := Entry{RequestID: id, Method: method, Path: path, Service: "rest", Role: role, Status: status,
			Duration: time.Duration(us) * time.Microsecond, Bytes: n, RemoteIP: ip, UserAgent: ua}
		var buf bytes.Buffer
		NewLogger(&buf, "gateway", slog.LevelInfo).Log(e)
		if got, want := decodeLine(t, buf.Bytes()), slogLine(t, e); !reflect.DeepEqual(got, want) {
			t.Errorf("line %q\n got %v\nwant %v", buf.Bytes(), got, want)
		}
	})
}

func BenchmarkLog(b *testing.B) {
	l := NewLogger(io.Discard, "gateway", slog.LevelInfo)
	e := Entry{RequestID: "0f7c2a8e-9b1d-4e3a-8c55-7d2f1e6b9a40", Method: "GET", Path: "/rest/v1/properties", Service: "rest",
		Role: "anon", Status: 200, Duration: time.Millisecond, Bytes: 12000, RemoteIP: "127.0.0.1", UserAgent: "Mozilla/5.0"}
	b.ReportAllocs()
	for b.Loop() {
		l.Log(e)
	}
}
