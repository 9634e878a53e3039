package render

import (
	"errors"
	"testing"

	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

func query(kv ...string) func(string) []string {
	m := map[string][]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = append(m[kv[i]], kv[i+1])
	}
	return func(n string) []string { return m[n] }
}

func TestParseQuery(t *testing.T) {
	tests := []struct {
		name    string
		q       []string
		want    Options
		wantMsg string
	}{
		{"none", nil, Options{}, ""},
		{"all", []string{"width", "300", "height", "200", "resize", "contain", "quality", "50", "format", "origin"},
			Options{Width: 300, Height: 200, Resize: "contain", Quality: 50, Format: "origin"}, ""},
		{"zero is unset", []string{"width", "0"}, Options{}, ""},
		{"float integer", []string{"width", "10.0"}, Options{Width: 10}, ""},
		{"avif accepted", []string{"format", "avif"}, Options{Format: "avif"}, ""},
		{"not a number", []string{"width", "abc"}, Options{}, "querystring/width must be integer"},
		{"fraction", []string{"height", "1.5"}, Options{}, "querystring/height must be integer"},
		{"empty", []string{"width", ""}, Options{}, "querystring/width must be integer"},
		{"negative", []string{"width", "-1"}, Options{}, "querystring/width must be >= 0"},
		{"quality low", []string{"quality", "10"}, Options{}, "querystring/quality must be >= 20"},
		{"quality high", []string{"quality", "101"}, Options{}, "querystring/quality must be <= 100"},
		{"resize unknown", []string{"resize", "fit"}, Options{}, "querystring/resize must be equal to one of the allowed values"},
		{"format unknown", []string{"format", "png"}, Options{}, "querystring/format must be equal to one of the allowed values"},
		{"repeated", []string{"width", "1", "width", "2"}, Options{}, "querystring/width must be integer"},
		{"height checked first", []string{"width", "x", "height", "y"}, Options{}, "querystring/height must be integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseQuery(query(tt.q...))
			if tt.wantMsg == "" {
				if err != nil || got != tt.want {
					t.Fatalf("ParseQuery = %+v, %v; want %+v", got, err, tt.want)
				}
				return
			}
			var e *storageerr.Error
			if !errors.As(err, &e) || e.Message != tt.wantMsg || e.Status != 400 || e.ErrorText != "Error" {
				t.Fatalf("ParseQuery error = %v; want 400 %q", err, tt.wantMsg)
			}
		})
	}
}

func TestParseBody(t *testing.T) {
	got, err := ParseBody(map[string]any{"width": 200.0, "height": 100.0, "resize": "fill", "quality": 60.0})
	if err != nil || got != (Options{Width: 200, Height: 100, Resize: "fill", Quality: 60}) {
		t.Fatalf("ParseBody = %+v, %v", got, err)
	}
	for _, bad := range []map[string]any{
		{"width": "wide"}, {"width": []any{1.0}}, {"quality": 5.0}, {"resize": "fit"}, {"width": true},
	} {
		if _, err := ParseBody(bad); err == nil {
			t.Errorf("ParseBody(%v) accepted", bad)
		}
	}
	_, err = ParseBody(map[string]any{"quality": 5.0})
	var e *storageerr.Error
	if !errors.As(err, &e) || e.Message != "body/transform/quality must be >= 20" {
		t.Errorf("message = %v", err)
	}
}

func TestClamp(t *testing.T) {
	l := Limits{MinSize: 1, MaxSize: 2500}
	tests := []struct{ in, want Options }{
		{Options{Width: 5000, Height: 10}, Options{Width: 2500, Height: 10}},
		{Options{Width: 0, Height: 3000}, Options{Height: 2500}},
		{Options{Width: 300}, Options{Width: 300}},
	}
	for _, tt := range tests {
		if got := tt.in.Clamp(l); got != tt.want {
			t.Errorf("%+v.Clamp = %+v, want %+v", tt.in, got, tt.want)
		}
	}
	if got := (Options{Width: 3}).Clamp(Limits{MinSize: 10, MaxSize: 20}); got.Width != 10 {
		t.Errorf("min clamp = %d", got.Width)
	}
}

func TestTokenString(t *testing.T) {
	tests := []struct {
		o    Options
		want string
	}{
		{Options{}, ""},
		{Options{Width: 300, Height: 200, Resize: "contain", Quality: 70, Format: "origin"}, "height:200,width:300,resize:contain,quality:70"},
		{Options{Width: 300}, "width:300"},
		{Options{Quality: 50}, "quality:50"},
		{Options{Resize: "fill"}, ""}, // resize without a size changes nothing
	}
	for _, tt := range tests {
		if got := tt.o.TokenString(); got != tt.want {
			t.Errorf("%+v.TokenString() = %q, want %q", tt.o, got, tt.want)
		}
		back := ParseTokenString(tt.o.TokenString())
		back.Format = tt.o.Format
		want := tt.o
		if !want.Resizes() {
			want.Resize = ""
		}
		if back != want {
			t.Errorf("round trip of %+v = %+v", tt.o, back)
		}
	}
}

func TestParseTokenString(t *testing.T) {
	tests := []struct {
		in   string
		want Options
	}{
		// upstream's keepOriginal form prints an unset resize as "undefined"
		{"height:200,width:200,resize:undefined", Options{Width: 200, Height: 200}},
		{"width:200px,quality:5", Options{Width: 200, Quality: MinQuality}},
		{"quality:500,format:origin", Options{Quality: MaxQuality, Format: "origin"}},
		{"width:-5,height:abc,bogus:1,,:", Options{}},
		{"width:99999999999999", Options{Width: 999999999}},
	}
	for _, tt := range tests {
		if got := ParseTokenString(tt.in); got != tt.want {
			t.Errorf("ParseTokenString(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func FuzzParseTokenString(f *testing.F) {
	for _, s := range []string{"", "height:200,width:300,resize:cover,quality:70", "width:1e9", "resize:fill,format:avif", ":::,,,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o := ParseTokenString(s)
		if o.Width < 0 || o.Height < 0 || (o.Quality != 0 && (o.Quality < MinQuality || o.Quality > MaxQuality)) {
			t.Fatalf("ParseTokenString(%q) = %+v", s, o)
		}
		c := o.Clamp(Limits{MinSize: 1, MaxSize: 2500})
		if c.Width > 2500 || c.Height > 2500 {
			t.Fatalf("clamp %+v", c)
		}
	})
}

func FuzzParseQuery(f *testing.F) {
	f.Add("300", "200", "cover", "80", "origin")
	f.Add("-1", "1.5", "fit", "19", "png")
	f.Add("", "1e3", "", "0x20", "")
	f.Fuzz(func(t *testing.T, w, h, resize, quality, format string) {
		o, err := ParseQuery(query("width", w, "height", h, "resize", resize, "quality", quality, "format", format))
		if err != nil {
			var e *storageerr.Error
			if !errors.As(err, &e) || e.Status != 400 {
				t.Fatalf("error %v is not a 400", err)
			}
			return
		}
		if o.Width < 0 || o.Height < 0 || o.Quality < MinQuality || o.Quality > MaxQuality {
			t.Fatalf("accepted %+v", o)
		}
	})
}
