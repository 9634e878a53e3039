package httpapi

import (
	"testing"

	"github.com/kejanest/kejanest/storage/internal/render"
)

func TestVariantETag(t *testing.T) {
	t.Parallel()
	card := render.Options{Width: 400}
	base := variantETag(`"abc"`, card, "image/webp")
	tests := []struct {
		name   string
		etag   string
		o      render.Options
		accept string
		same   bool
	}{
		{"same request", `"abc"`, card, "image/avif,image/webp", true},
		{"client without webp", `"abc"`, card, "image/png", false},
		{"origin format", `"abc"`, render.Options{Width: 400, Format: render.FormatOrigin}, "image/webp", false},
		{"other size", `"abc"`, render.Options{Width: 401}, "image/webp", false},
		{"object changed", `"abd"`, card, "image/webp", false},
	}
	for _, tt := range tests {
		if got := variantETag(tt.etag, tt.o, tt.accept); (got == base) != tt.same {
			t.Errorf("%s: %s vs %s", tt.name, got, base)
		}
	}
	if base[0] != '"' || base[len(base)-1] != '"' {
		t.Errorf("etag %s is not quoted", base)
	}
	if !etagListHas(`W/"x", `+base, base) || etagListHas(`"x"`, base) || !etagListHas("*", base) {
		t.Error("etagListHas")
	}
}

func TestRenderDisposition(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"":              "attachment;",
		"room 1.webp":   "attachment; filename=room%201.webp; filename*=UTF-8''room%201.webp;",
		"a\";\r\nb.png": "attachment; filename=a%22%3B%0D%0Ab.png; filename*=UTF-8''a%22%3B%0D%0Ab.png;",
	}
	for in, want := range tests {
		if got := renderDisposition(in); got != want {
			t.Errorf("renderDisposition(%q) = %q, want %q", in, got, want)
		}
	}
}
