package objects

import (
	"strings"
	"testing"
)

func TestValidName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ok   bool
	}{
		{"a.txt", true},
		{"folder/sub/file.png", true},
		{"0b6c5ac8-8a2c-4c4e-9f1a-5f0d3f9e8a11", true},
		{"(name) with spaces & more!.txt", true},
		{"a'b*c$d@e=f;g:h+i,j?k", true},
		{"..a/b..", true},
		{"", false},
		{"..", false},
		{".", false},
		{"a/../b", false},
		{"../etc/passwd", false},
		{"a/./b", false},
		{"a//b", false},
		{"/leading", false},
		{"trailing/", false},
		{"tab\tname", false},
		{"new\nline", false},
		{"nul\x00byte", false},
		{"back\\slash", false},
		{"{curly}", false},
		{"per%cent", false},
		{"hash#tag", false},
		{"ünïcödé", false},
		{"\xff\xfe", false},
		{strings.Repeat("a", MaxNameBytes), true},
		{strings.Repeat("a", MaxNameBytes+1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ValidName(tt.name); got != tt.ok {
				t.Errorf("ValidName(%q) = %v, want %v", tt.name, got, tt.ok)
			}
			if err := CheckName(tt.name); (err == nil) != tt.ok {
				t.Errorf("CheckName(%q) = %v", tt.name, err)
			}
		})
	}
}

func TestValidBucketName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ok   bool
	}{
		{"avatars", true},
		{"my-bucket_2.0", true},
		{"", false},
		{".", false},
		{"..", false},
		{"a/b", false},
		{"tab\t", false},
		{strings.Repeat("b", MaxBucketNameBytes), true},
		{strings.Repeat("b", MaxBucketNameBytes+1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ValidBucketName(tt.name); got != tt.ok {
				t.Errorf("ValidBucketName(%q) = %v, want %v", tt.name, got, tt.ok)
			}
		})
	}
}

func FuzzValidName(f *testing.F) {
	for _, s := range []string{"a/b.txt", "a/../b", "..", "a//b", "x\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if !ValidName(name) {
			return
		}
		for _, seg := range strings.Split(name, "/") {
			if seg == "" || seg == "." || seg == ".." {
				t.Fatalf("ValidName(%q) accepted a %q segment", name, seg)
			}
		}
		if strings.ContainsAny(name, "\x00\\\n\r") {
			t.Fatalf("ValidName(%q) accepted a control or backslash", name)
		}
	})
}

func TestMimeAllowed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ct      string
		allowed []string
		ok      bool
	}{
		{"image/png", nil, true},
		{"image/png", []string{"image/jpeg", "image/png"}, true},
		{"IMAGE/PNG; charset=x", []string{"image/png"}, true},
		{"text/plain;charset=UTF-8", []string{"text/*"}, true},
		{"image/gif", []string{"text/*"}, false},
		{"text/html", []string{"image/png"}, false},
		{"textual/x", []string{"text/*"}, false},
	}
	for _, tt := range tests {
		if got := MimeAllowed(tt.ct, tt.allowed); got != tt.ok {
			t.Errorf("MimeAllowed(%q, %q) = %v, want %v", tt.ct, tt.allowed, got, tt.ok)
		}
	}
}

func TestParseRange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		h             string
		size          int64
		start, length int64
		none, bad     bool
	}{
		{h: "", size: 10, none: true},
		{h: "bytes=0-4", size: 10, start: 0, length: 5},
		{h: "bytes=5-", size: 10, start: 5, length: 5},
		{h: "bytes=-3", size: 10, start: 7, length: 3},
		{h: "bytes=-30", size: 10, start: 0, length: 10},
		{h: "bytes=8-100", size: 10, start: 8, length: 2},
		{h: "bytes=10-", size: 10, bad: true},
		{h: "bytes=5-2", size: 10, bad: true},
		{h: "bytes=x-2", size: 10, bad: true},
		{h: "bytes=-0", size: 10, bad: true},
		{h: "bytes=0-1,3-4", size: 10, none: true},
		{h: "items=0-1", size: 10, none: true},
	}
	for _, tt := range tests {
		r, err := ParseRange(tt.h, tt.size)
		switch {
		case tt.bad:
			if err == nil {
				t.Errorf("ParseRange(%q) = %+v, want an error", tt.h, r)
			}
		case tt.none:
			if r != nil || err != nil {
				t.Errorf("ParseRange(%q) = %+v, %v, want none", tt.h, r, err)
			}
		default:
			if err != nil || r == nil || r.Start != tt.start || r.Length != tt.length {
				t.Errorf("ParseRange(%q) = %+v, %v, want %d+%d", tt.h, r, err, tt.start, tt.length)
			}
		}
	}
}

func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"bytes=0-1", "bytes=-5", "bytes=3-", "bytes=9-1"} {
		f.Add(s, int64(10))
	}
	f.Fuzz(func(t *testing.T, h string, size int64) {
		if size < 0 {
			return
		}
		r, err := ParseRange(h, size)
		if err != nil || r == nil {
			return
		}
		if r.Start < 0 || r.Length <= 0 || r.Start+r.Length > size {
			t.Fatalf("ParseRange(%q, %d) = %+v out of bounds", h, size, r)
		}
	})
}
