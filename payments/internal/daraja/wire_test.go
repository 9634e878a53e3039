package daraja

import (
	"encoding/json"
	"testing"
	"time"
)

// Daraja's documentation derives the STK password from its sandbox
// shortcode and passkey at 2016-02-16 16:56:27 (Nairobi).
func TestPasswordAndTimestamp(t *testing.T) {
	t.Parallel()
	const (
		shortcode = "174379"
		passkey   = "bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919"
		want      = "MTc0Mzc5YmZiMjc5ZjlhYTliZGJjZjE1OGU5N2RkNzFhNDY3Y2QyZTBjODkzMDU5YjEwZjc4ZTZiNzJhZGExZWQyYzkxOTIwMTYwMjE2MTY1NjI3"
	)
	tests := []struct {
		name string
		at   time.Time
		ts   string
	}{
		{"the documented instant, given in UTC", time.Date(2016, 2, 16, 13, 56, 27, 0, time.UTC), "20160216165627"},
		{"the same instant in another zone", time.Date(2016, 2, 16, 8, 56, 27, 0, time.FixedZone("EST", -5*3600)), "20160216165627"},
		{"nanoseconds are dropped", time.Date(2016, 2, 16, 13, 56, 27, 999999999, time.UTC), "20160216165627"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := Timestamp(tc.at)
			if ts != tc.ts {
				t.Fatalf("Timestamp = %s, want %s", ts, tc.ts)
			}
			if got := Password(shortcode, passkey, ts); got != want {
				t.Errorf("Password = %s, want %s", got, want)
			}
			back, err := ParseTimestamp(ts)
			if err != nil || !back.Equal(tc.at.Truncate(time.Second)) {
				t.Errorf("ParseTimestamp(%s) = %v, %v; want %v", ts, back, err, tc.at)
			}
		})
	}
	// Midnight in Nairobi is still the previous day in UTC.
	if got := Timestamp(time.Date(2024, 12, 31, 21, 30, 0, 0, time.UTC)); got != "20250101003000" {
		t.Errorf("Timestamp across midnight = %s", got)
	}
}

func TestNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		json    string
		text    string
		whole   int64
		isWhole bool
		bad     bool
	}{
		{`0`, "0", 0, true, false},
		{`"1032"`, "1032", 1032, true, false},
		{`500.00`, "500.00", 500, true, false},
		{`"3599"`, "3599", 3599, true, false},
		{`1.5`, "1.5", 0, false, false},
		{`null`, "", 0, false, false},
		{`" 12 "`, "12", 12, true, false},
		{`"abc"`, "", 0, false, true},
		{`true`, "", 0, false, true},
		{`1e3`, "1e3", 0, false, false},
		{`99999999999999999999`, "99999999999999999999", 0, false, false},
	}
	for _, tc := range tests {
		var n Number
		err := json.Unmarshal([]byte(tc.json), &n)
		if (err != nil) != tc.bad {
			t.Errorf("%s: err %v, want error %v", tc.json, err, tc.bad)
			continue
		}
		if tc.bad {
			continue
		}
		if string(n) != tc.text {
			t.Errorf("%s: text %q, want %q", tc.json, n, tc.text)
		}
		if i, ok := n.Int(); ok != tc.isWhole || i != tc.whole {
			t.Errorf("%s: Int() = %d, %v; want %d, %v", tc.json, i, ok, tc.whole, tc.isWhole)
		}
	}
	b, err := json.Marshal(PushRequest{Amount: Int64(500)})
	if err != nil || !json.Valid(b) || string(b[len(`{"BusinessShortCode":"","Password":"","Timestamp":"","TransactionType":"","Amount":`):][:3]) != "500" {
		t.Errorf("Amount marshals as %s, %v", b, err)
	}
}
