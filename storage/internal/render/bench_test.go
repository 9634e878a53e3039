package render

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"testing"

	"github.com/gen2brain/webp"
	"golang.org/x/image/draw"

	"github.com/kejanest/kejanest/storage/internal/objects"
)

// BenchmarkResize compares the interpolators on a decoded 6 Mpx phone
// photo (YCbCr, as image/jpeg gives it) scaled to a card (400 px) and a
// gallery (1200 px) width.
//
//	go test -run '^$' -bench Resize -benchtime 5x ./storage/internal/render
func BenchmarkResize(b *testing.B) {
	src, err := jpeg.Decode(bytes.NewReader(encoded(b, fmtJPEG, photo(3000, 2000, false))))
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range []struct {
		name string
		in   draw.Interpolator
	}{{"CatmullRom", draw.CatmullRom}, {"BiLinear", draw.BiLinear}, {"ApproxBiLinear", draw.ApproxBiLinear}} {
		for _, w := range []int{400, 1200} {
			b.Run(fmt.Sprintf("%s/%d", k.name, w), func(b *testing.B) {
				dst := image.NewRGBA(image.Rect(0, 0, w, w*2/3))
				for b.Loop() {
					k.in.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
				}
			})
		}
	}
}

// BenchmarkEncode compares WebP (lossy, the encoder in use) with JPEG at
// the default quality on a 400 px card; the size is reported per image.
func BenchmarkEncode(b *testing.B) {
	m := image.NewRGBA(image.Rect(0, 0, 400, 267))
	draw.CatmullRom.Scale(m, m.Bounds(), photo(3000, 2000, false), image.Rect(0, 0, 3000, 2000), draw.Src, nil)
	encoders := map[string]func(*bytes.Buffer) error{
		"webp-q80": func(w *bytes.Buffer) error { return webp.Encode(w, m, webp.Options{Quality: 80, Method: 4}) },
		"jpeg-q80": func(w *bytes.Buffer) error { return jpeg.Encode(w, m, &jpeg.Options{Quality: 80}) },
	}
	for name, enc := range encoders {
		b.Run(name, func(b *testing.B) {
			var w bytes.Buffer
			for b.Loop() {
				w.Reset()
				if err := enc(&w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(w.Len()), "bytes/img")
		})
	}
}

// BenchmarkRender is a whole render: a 3000×2000 JPEG to a 400 px WebP.
func BenchmarkRender(b *testing.B) {
	src := encoded(b, fmtJPEG, photo(3000, 2000, false))
	r := New(Config{Workers: 2}, objects.NewImageBudget(256<<20, 0), objects.DecodeCost)
	for b.Loop() {
		if _, err := r.Render(context.Background(), bytes.NewReader(src), int64(len(src)), Options{Width: 400}, "image/webp"); err != nil {
			b.Fatal(err)
		}
	}
}
