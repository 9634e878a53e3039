package render

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"sync"
	"testing"
	"time"

	"github.com/gen2brain/webp"
	xwebp "golang.org/x/image/webp"

	"github.com/kejanest/kejanest/storage/internal/objects"
	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// photo is a w×h test image with gradients and edges, so resizing and
// lossy encoding have something to do.
func photo(w, h int, alpha bool) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			a := uint8(255)
			if alpha && x < w/4 {
				a = 0
			}
			m.SetNRGBA(x, y, color.NRGBA{uint8(x * 255 / w), uint8(y * 255 / h), uint8((x ^ y) & 0xff), a})
		}
	}
	return m
}

func encoded(t testing.TB, format string, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	var err error
	switch format {
	case fmtJPEG:
		err = jpeg.Encode(&b, m, &jpeg.Options{Quality: 90})
	case fmtPNG:
		err = png.Encode(&b, m)
	case fmtGIF:
		err = gif.Encode(&b, m, nil)
	case fmtWebP:
		err = webp.Encode(&b, m, webp.Options{Quality: 90})
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// testRenderer renders with the service's real budget, whose peak the
// tests observe.
func testRenderer(limit int64, workers int) (*Renderer, *objects.ImageBudget) {
	b := objects.NewImageBudget(limit, 100*time.Millisecond)
	return New(Config{
		Limits:         Limits{MinSize: 1, MaxSize: 2500},
		MaxSourceBytes: 10 << 20, MaxSourcePixels: 4_000_000,
		Workers: workers, QueueTimeout: 100 * time.Millisecond,
	}, b, objects.DecodeCost), b
}

func TestRenderFormatsAndSizes(t *testing.T) {
	r, budget := testRenderer(256<<20, 2)
	tests := []struct {
		name         string
		src          string
		alpha        bool
		o            Options
		accept       string
		wantType     string
		wantW, wantH int
	}{
		{"jpeg cover both, webp accepted", fmtJPEG, false, Options{Width: 100, Height: 100}, "image/avif,image/webp,*/*", "image/webp", 100, 100},
		{"jpeg width only keeps ratio", fmtJPEG, false, Options{Width: 150}, "*/*", "image/jpeg", 150, 100},
		{"origin format refuses webp", fmtJPEG, false, Options{Width: 150, Format: FormatOrigin}, "image/webp", "image/jpeg", 150, 100},
		{"avif answered as automatic", fmtPNG, false, Options{Height: 50, Format: FormatAVIF}, "image/webp", "image/webp", 75, 50},
		{"png contain", fmtPNG, true, Options{Width: 100, Height: 100, Resize: ResizeContain}, "", "image/png", 100, 67},
		{"png fill stretches", fmtPNG, true, Options{Width: 100, Height: 100, Resize: ResizeFill}, "", "image/png", 100, 100},
		{"fill missing side keeps source", fmtPNG, false, Options{Width: 100, Resize: ResizeFill}, "", "image/png", 100, 200},
		{"never enlarges", fmtJPEG, false, Options{Width: 1000, Height: 1000}, "", "image/jpeg", 300, 200},
		{"clamped to max", fmtJPEG, false, Options{Width: 99999}, "", "image/jpeg", 300, 200},
		{"gif first frame", fmtGIF, false, Options{Width: 30}, "", "image/gif", 30, 20},
		{"webp source to origin", fmtWebP, true, Options{Width: 60, Format: FormatOrigin}, "image/webp", "image/webp", 60, 40},
		{"webp source, jpeg-only client", fmtWebP, false, Options{Width: 60}, "image/jpeg", "image/webp", 60, 40},
		{"quality only keeps size", fmtJPEG, false, Options{Quality: 30}, "", "image/jpeg", 300, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := encoded(t, tt.src, photo(300, 200, tt.alpha))
			res, err := r.Render(context.Background(), bytes.NewReader(src), int64(len(src)), tt.o, tt.accept)
			if err != nil {
				t.Fatal(err)
			}
			if res.ContentType != tt.wantType {
				t.Errorf("type = %s, want %s", res.ContentType, tt.wantType)
			}
			cfg, format, err := decodeOut(res.Body)
			if err != nil {
				t.Fatalf("decode output: %v", err)
			}
			if "image/"+format != tt.wantType || cfg.Width != tt.wantW || cfg.Height != tt.wantH {
				t.Errorf("output %s %dx%d, want %s %dx%d", format, cfg.Width, cfg.Height, tt.wantType, tt.wantW, tt.wantH)
			}
			if res.Width != cfg.Width || res.Height != cfg.Height {
				t.Errorf("Result size %dx%d, body %dx%d", res.Width, res.Height, cfg.Width, cfg.Height)
			}
		})
	}
	if budget.InUse() != 0 {
		t.Errorf("budget still holds %d bytes", budget.InUse())
	}
	if budget.Peak() == 0 {
		t.Error("renders took nothing from the budget")
	}
}

// decodeOut reads an output's header by its magic bytes.
func decodeOut(b []byte) (image.Config, string, error) {
	f := Sniff(b)
	if f == fmtWebP {
		c, err := xwebp.DecodeConfig(bytes.NewReader(b))
		return c, f, err
	}
	if f == "" {
		return image.Config{}, "", errors.New("unknown output format")
	}
	return decodeConfigOf(f, b)
}

func decodeConfigOf(f string, b []byte) (image.Config, string, error) {
	c, err := decodeConfig(f, b)
	return c, f, err
}

func TestCoverCropsCentre(t *testing.T) {
	// Left half black, right half white: a square cover crop of a 2:1
	// image keeps the middle, half of each.
	m := image.NewRGBA(image.Rect(0, 0, 200, 100))
	for y := 0; y < 100; y++ {
		for x := 100; x < 200; x++ {
			m.Set(x, y, color.White)
		}
	}
	r, _ := testRenderer(64<<20, 1)
	src := encoded(t, fmtPNG, m)
	res, err := r.Render(context.Background(), bytes.NewReader(src), int64(len(src)), Options{Width: 50, Height: 50}, "")
	if err != nil {
		t.Fatal(err)
	}
	out, err := png.Decode(bytes.NewReader(res.Body))
	if err != nil {
		t.Fatal(err)
	}
	if lum(out.At(5, 25)) > 20 || lum(out.At(44, 25)) < 235 {
		t.Errorf("crop not centred: left %d right %d", lum(out.At(5, 25)), lum(out.At(44, 25)))
	}
}

func lum(c color.Color) uint32 {
	r, g, b, _ := c.RGBA()
	return (r + g + b) / 3 >> 8
}

func TestPlanResize(t *testing.T) {
	tests := []struct {
		name         string
		w, h         int
		o            Options
		wantW, wantH int
		wantSrc      image.Rectangle
	}{
		{"cover square of landscape", 400, 200, Options{Width: 100, Height: 100}, 100, 100, image.Rect(100, 0, 300, 200)},
		{"cover height only", 400, 200, Options{Height: 100}, 200, 100, image.Rect(0, 0, 400, 200)},
		{"cover larger box crops without enlarging", 400, 200, Options{Width: 300, Height: 300}, 300, 200, image.Rect(50, 0, 350, 200)},
		{"contain", 400, 200, Options{Width: 100, Height: 100, Resize: ResizeContain}, 100, 50, image.Rect(0, 0, 400, 200)},
		{"contain no enlarge", 400, 200, Options{Width: 800, Resize: ResizeContain}, 400, 200, image.Rect(0, 0, 400, 200)},
		{"fill", 400, 200, Options{Width: 50, Height: 150, Resize: ResizeFill}, 50, 150, image.Rect(0, 0, 400, 200)},
		{"tiny keeps a pixel", 4000, 10, Options{Width: 1, Resize: ResizeContain}, 1, 1, image.Rect(0, 0, 4000, 10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := planResize(tt.w, tt.h, tt.o)
			if p.Width != tt.wantW || p.Height != tt.wantH || p.Src != tt.wantSrc {
				t.Errorf("plan = %+v, want %dx%d from %v", p, tt.wantW, tt.wantH, tt.wantSrc)
			}
		})
	}
}

func TestRenderRefuses(t *testing.T) {
	r, budget := testRenderer(64<<20, 1)
	big := encoded(t, fmtPNG, image.NewGray(image.Rect(0, 0, 2100, 2000))) // 4.2 MP > 4 MP
	tests := []struct {
		name    string
		src     []byte
		size    int64
		wantMsg string
	}{
		{"not an image", []byte("%PDF-1.7 hello"), 14, "Source image type not supported"},
		{"truncated png", encoded(t, fmtPNG, photo(10, 10, false))[:20], 20, "Invalid source image"},
		{"resolution", big, int64(len(big)), "Source image resolution is too big"},
		{"file size", nil, 11 << 20, "Source image file is too big"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Render(context.Background(), bytes.NewReader(tt.src), tt.size, Options{Width: 10}, "")
			var e *storageerr.Error
			if !errors.As(err, &e) || e.Status != 422 || e.Code != storageerr.CodeInvalidRequest || !bytes.HasPrefix([]byte(e.Message), []byte(tt.wantMsg)) {
				t.Fatalf("err = %v, want 422 %q", err, tt.wantMsg)
			}
		})
	}
	if budget.InUse() != 0 {
		t.Errorf("budget still holds %d bytes", budget.InUse())
	}
}

func TestRenderOverBudgetRefused(t *testing.T) {
	// Encoding a WebP alone is costed above 16 MiB.
	r, _ := testRenderer(16<<20, 1)
	src := encoded(t, fmtPNG, photo(300, 300, false))
	_, err := r.Render(context.Background(), bytes.NewReader(src), int64(len(src)), Options{Width: 500}, "image/webp")
	var e *storageerr.Error
	if !errors.As(err, &e) || e.Status != 422 {
		t.Fatalf("err = %v, want 422 (over the budget)", err)
	}
}

func TestWorkersBounded(t *testing.T) {
	r, _ := testRenderer(256<<20, 1)
	r.workers <- struct{}{} // the only worker is busy
	src := encoded(t, fmtPNG, photo(20, 20, false))
	_, err := r.Render(context.Background(), bytes.NewReader(src), int64(len(src)), Options{}, "")
	var e *storageerr.Error
	if !errors.As(err, &e) || e.Code != storageerr.CodeSlowDown || e.ResponseStatus() != 429 {
		t.Fatalf("err = %v, want SlowDown", err)
	}
	<-r.workers
	if _, err := r.Render(context.Background(), bytes.NewReader(src), int64(len(src)), Options{}, ""); err != nil {
		t.Fatalf("after the worker freed: %v", err)
	}
}

func TestConcurrentRendersStayInBudget(t *testing.T) {
	const limit = 48 << 20
	budget := objects.NewImageBudget(limit, time.Minute)
	r := New(Config{Limits: Limits{MinSize: 1, MaxSize: 2500}, Workers: 4, QueueTimeout: time.Minute}, budget, objects.DecodeCost)
	src := encoded(t, fmtJPEG, photo(600, 400, false))
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := r.Render(context.Background(), bytes.NewReader(src), int64(len(src)), Options{Width: 400}, "image/webp")
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if p := budget.Peak(); p > limit || p == 0 {
		t.Errorf("peak %d, limit %d", p, limit)
	}
}

func TestOutputFormat(t *testing.T) {
	tests := []struct {
		src, accept string
		o           Options
		want        string
	}{
		{fmtJPEG, "image/webp,*/*", Options{}, fmtWebP},
		{fmtJPEG, "IMAGE/WEBP", Options{}, fmtWebP},
		{fmtJPEG, "*/*", Options{}, fmtJPEG},
		{fmtPNG, "image/webp", Options{Format: FormatOrigin}, fmtPNG},
		{fmtGIF, "", Options{}, fmtGIF},
	}
	for _, tt := range tests {
		if got := OutputFormat(tt.src, tt.o, tt.accept); got != tt.want {
			t.Errorf("OutputFormat(%s, %+v, %q) = %s, want %s", tt.src, tt.o, tt.accept, got, tt.want)
		}
	}
}

func FuzzRender(f *testing.F) {
	f.Add(encoded(f, fmtPNG, photo(8, 8, true)), 4)
	f.Add(encoded(f, fmtJPEG, photo(8, 8, false)), 3)
	f.Add(encoded(f, fmtGIF, photo(8, 8, false)), 0)
	f.Add([]byte("RIFF\x00\x00\x00\x00WEBPVP8 "), 2)
	r, budget := testRenderer(64<<20, 2)
	f.Fuzz(func(t *testing.T, data []byte, w int) {
		o := Options{Width: w & 0xff}
		res, err := r.Render(context.Background(), bytes.NewReader(data), int64(len(data)), o, "")
		if err == nil && len(res.Body) == 0 {
			t.Fatal("empty output without an error")
		}
		var e *storageerr.Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("uncoded error %v", err)
		}
		if budget.InUse() != 0 {
			t.Fatalf("budget holds %d", budget.InUse())
		}
	})
}
