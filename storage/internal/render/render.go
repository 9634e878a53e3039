package render

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gen2brain/webp"
	"golang.org/x/image/draw"
	xwebp "golang.org/x/image/webp"

	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// Defaults of the settings, under imgproxy's and Supabase Storage's names.
const (
	// DefaultMinSize and DefaultMaxSize are the dimension clamp
	// (IMAGE_TRANSFORMATION_LIMIT_MIN_SIZE, _MAX_SIZE): Supabase's hosted
	// limits, 1 to 2500 px.
	DefaultMinSize = 1
	DefaultMaxSize = 2500
	// DefaultMaxSourceBytes is the largest source (IMGPROXY_MAX_SRC_FILE_SIZE),
	// Supabase's hosted 25 MB.
	DefaultMaxSourceBytes = 25_000_000
	// DefaultMaxSourcePixels is the largest source resolution
	// (IMGPROXY_MAX_SRC_RESOLUTION, in megapixels there), Supabase's
	// hosted 50 MP.
	DefaultMaxSourcePixels = 50_000_000
)

// Budget is the service's image memory budget (objects.ImageBudget): a
// render takes what it will hold before it reads or decodes anything.
type Budget interface {
	Acquire(ctx context.Context, n int64) (release func(), err error)
}

// CostFunc is what decoding one JPEG or PNG costs, worked out from its
// header by the upload path's cost model (objects.DecodeCost); ok is false
// for other formats, which render costs itself.
type CostFunc func(format string, head []byte, width, height int) (cost int64, ok bool)

// Config holds a Renderer's limits.
type Config struct {
	Limits Limits
	// MaxSourceBytes and MaxSourcePixels refuse larger sources (422).
	MaxSourceBytes  int64
	MaxSourcePixels int64
	// Workers bounds the renders running at once (IMGPROXY_WORKERS);
	// the others wait up to QueueTimeout, then get SlowDown.
	Workers      int
	QueueTimeout time.Duration
	// Interpolator resizes; nil is draw.CatmullRom.
	Interpolator draw.Interpolator
}

// Renderer turns stored images into transformed ones.
type Renderer struct {
	cfg     Config
	budget  Budget
	cost    CostFunc
	workers chan struct{}
}

// New returns a Renderer taking its memory from budget and its JPEG and
// PNG decoding costs from cost.
func New(cfg Config, budget Budget, cost CostFunc) *Renderer {
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	if cfg.Interpolator == nil {
		cfg.Interpolator = draw.CatmullRom
	}
	if cfg.Limits.MaxSize < 1 {
		cfg.Limits = Limits{MinSize: DefaultMinSize, MaxSize: DefaultMaxSize}
	}
	return &Renderer{cfg: cfg, budget: budget, cost: cost, workers: make(chan struct{}, cfg.Workers)}
}

// Limits are the dimension clamp in force.
func (r *Renderer) Limits() Limits { return r.cfg.Limits }

// Result is a rendered image.
type Result struct {
	Body          []byte
	ContentType   string
	Width, Height int
}

// Source formats, as sniffed from the bytes (never the stored type).
const (
	fmtJPEG = "jpeg"
	fmtPNG  = "png"
	fmtGIF  = "gif"
	fmtWebP = "webp"
)

// Sniff names the image format of the bytes in head, or "".
func Sniff(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return fmtJPEG
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return fmtPNG
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return fmtGIF
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return fmtWebP
	}
	return ""
}

// OutputFormat is the format a render of a src-format image answers with:
// WebP when the client accepts it and o does not ask for the origin's
// (imgproxy's WebP detection, which Supabase enables), else the source's.
// AVIF is not encoded here; asking for it is answered as automatic.
func OutputFormat(src string, o Options, accept string) string {
	if o.Format != FormatOrigin && strings.Contains(strings.ToLower(accept), "image/webp") {
		return fmtWebP
	}
	return src
}

// ContentType is the MIME type of a format name.
func ContentType(format string) string { return "image/" + format }

// Render reads the size-byte image from src and transforms it by o; the
// output format follows accept (OutputFormat). Memory is taken from the
// budget first: the source bytes, then, once the header is read, the
// decoded image, the resized one and the encoder's buffers.
func (r *Renderer) Render(ctx context.Context, src io.Reader, size int64, o Options, accept string) (Result, error) {
	if r.cfg.MaxSourceBytes > 0 && size > r.cfg.MaxSourceBytes {
		return Result{}, unprocessable("Source image file is too big")
	}
	o = o.Clamp(r.cfg.Limits)
	if err := r.enter(ctx); err != nil {
		return Result{}, err
	}
	defer func() { <-r.workers }()

	releaseSrc, err := r.budget.Acquire(ctx, size+bytes.MinRead)
	if err != nil {
		return Result{}, err
	}
	defer releaseSrc()
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(src, size+1)); err != nil {
		return Result{}, fmt.Errorf("read source image: %w", err)
	}
	data := buf.Bytes()

	format := Sniff(data)
	if format == "" {
		return Result{}, unprocessable("Source image type not supported")
	}
	cfg, err := decodeConfig(format, data)
	if err != nil {
		return Result{}, unprocessable("Invalid source image: " + err.Error())
	}
	if cfg.Width < 1 || cfg.Height < 1 {
		return Result{}, unprocessable("Invalid source image")
	}
	if r.cfg.MaxSourcePixels > 0 && int64(cfg.Width)*int64(cfg.Height) > r.cfg.MaxSourcePixels {
		return Result{}, unprocessable("Source image resolution is too big")
	}
	out := OutputFormat(format, o, accept)
	plan := planResize(cfg.Width, cfg.Height, o)
	releaseWork, err := r.budget.Acquire(ctx, r.workCost(format, data, cfg, plan, out))
	if err != nil {
		return Result{}, err
	}
	defer releaseWork()

	img, err := decode(format, data)
	if err != nil {
		return Result{}, unprocessable("Invalid source image: " + err.Error())
	}
	img = r.resize(img, plan)
	var w bytes.Buffer
	if err := encode(&w, img, out, o.quality()); err != nil {
		return Result{}, fmt.Errorf("encode %s: %w", out, err)
	}
	b := img.Bounds()
	return Result{Body: w.Bytes(), ContentType: ContentType(out), Width: b.Dx(), Height: b.Dy()}, nil
}

// enter takes a worker slot, waiting at most until ctx is done or the
// queue timeout passes.
func (r *Renderer) enter(ctx context.Context) error {
	select {
	case r.workers <- struct{}{}:
		return nil
	default:
	}
	timer := time.NewTimer(r.cfg.QueueTimeout)
	defer timer.Stop()
	select {
	case r.workers <- struct{}{}:
		return nil
	case <-ctx.Done():
	case <-timer.C:
	}
	return storageerr.SlowDown("Too many images are being transformed; retry later")
}

func (o Options) quality() int {
	if o.Quality == 0 {
		return DefaultQuality
	}
	return o.Quality
}

// unprocessable is upstream's ImageProcessingError for imgproxy's 422:
// statusCode "422", code InvalidRequest, HTTP 400.
func unprocessable(msg string) error {
	return storageerr.ImageRefused(http.StatusUnprocessableEntity, msg)
}

func decodeConfig(format string, data []byte) (image.Config, error) {
	rd := bytes.NewReader(data)
	switch format {
	case fmtJPEG:
		return jpeg.DecodeConfig(rd)
	case fmtPNG:
		return png.DecodeConfig(rd)
	case fmtGIF:
		return gif.DecodeConfig(rd)
	}
	return xwebp.DecodeConfig(rd)
}

// decode decodes the image; a GIF's first frame only.
func decode(format string, data []byte) (image.Image, error) {
	rd := bytes.NewReader(data)
	switch format {
	case fmtJPEG:
		return jpeg.Decode(rd)
	case fmtPNG:
		return png.Decode(rd)
	case fmtGIF:
		return gif.Decode(rd)
	}
	return xwebp.Decode(rd)
}

// plan is a resize: the source rectangle to draw (the centred crop of
// cover) and the output size. A zero plan (Same) keeps the image.
type plan struct {
	Src           image.Rectangle
	Width, Height int
	Same          bool
}

// planResize works out imgproxy's geometry for o on a w×h source, with
// its default of never enlarging: cover ("fill") scales to cover the box
// and crops the centre; contain ("fit") scales to fit inside it; fill
// ("force") stretches each side to the box, each capped at the source's.
// A missing side follows the aspect ratio (cover, contain) or keeps the
// source's (fill).
func planResize(w, h int, o Options) plan {
	full := image.Rect(0, 0, w, h)
	if !o.Resizes() {
		return plan{Src: full, Width: w, Height: h, Same: true}
	}
	tw, th := o.Width, o.Height
	fw, fh := float64(w), float64(h)
	switch o.Resize {
	case ResizeFill:
		if tw == 0 {
			tw = w
		}
		if th == 0 {
			th = h
		}
		tw, th = min(tw, w), min(th, h)
		return plan{Src: full, Width: tw, Height: th, Same: tw == w && th == h}
	case ResizeContain:
		s := 1.0
		if tw > 0 {
			s = min(s, float64(tw)/fw)
		}
		if th > 0 {
			s = min(s, float64(th)/fh)
		}
		ow, oh := scaled(fw, s), scaled(fh, s)
		return plan{Src: full, Width: ow, Height: oh, Same: ow == w && oh == h}
	}
	// cover
	var s float64
	switch {
	case tw > 0 && th > 0:
		s = max(float64(tw)/fw, float64(th)/fh)
	case tw > 0:
		s = float64(tw) / fw
	default:
		s = float64(th) / fh
	}
	s = min(s, 1)
	sw, sh := scaled(fw, s), scaled(fh, s)
	if tw == 0 {
		tw = sw
	}
	if th == 0 {
		th = sh
	}
	ow, oh := min(tw, sw), min(th, sh)
	// The source rectangle that scales to ow×oh, centred.
	cw, ch := min(w, int(float64(ow)/s+0.5)), min(h, int(float64(oh)/s+0.5))
	x0, y0 := (w-cw)/2, (h-ch)/2
	src := image.Rect(x0, y0, x0+cw, y0+ch)
	return plan{Src: src, Width: ow, Height: oh, Same: src == full && ow == w && oh == h}
}

func scaled(v, s float64) int { return max(1, int(v*s+0.5)) }

// resize draws the plan's source rectangle of img at the output size. A
// reduction to less than a quarter goes through an intermediate at twice
// the output size, reached with ApproxBiLinear: the interpolator's kernel
// grows with the reduction, and CatmullRom straight from a 6 Mpx photo to
// a 400 px card took 1.8 s (BenchmarkResize); the whole render of such a
// JPEG to a WebP card went from 1.4 s to 0.5 s this way (BenchmarkRender),
// the final CatmullRom step still filtering the result.
func (r *Renderer) resize(img image.Image, p plan) image.Image {
	if p.Same {
		return img
	}
	src, srcRect := img, p.Src.Add(img.Bounds().Min)
	if iw, ih := prescaleSize(p); iw > 0 {
		mid := image.NewRGBA(image.Rect(0, 0, iw, ih))
		draw.ApproxBiLinear.Scale(mid, mid.Bounds(), src, srcRect, draw.Src, nil)
		src, srcRect = mid, mid.Bounds()
	}
	dst := image.NewRGBA(image.Rect(0, 0, p.Width, p.Height))
	r.cfg.Interpolator.Scale(dst, dst.Bounds(), src, srcRect, draw.Src, nil)
	return dst
}

// prescaleSize is the intermediate size of a reduction to less than a
// quarter (twice the output), or zeros.
func prescaleSize(p plan) (w, h int) {
	if p.Src.Dx() <= 4*p.Width && p.Src.Dy() <= 4*p.Height {
		return 0, 0
	}
	return min(2*p.Width, p.Src.Dx()), min(2*p.Height, p.Src.Dy())
}

// encode writes img as format. draw leaves premultiplied RGBA, which
// libwebp would read as straight alpha: WebP gets it converted.
func encode(w io.Writer, img image.Image, format string, quality int) error {
	switch format {
	case fmtJPEG:
		return jpeg.Encode(w, img, &jpeg.Options{Quality: quality})
	case fmtPNG:
		return png.Encode(w, img)
	case fmtGIF:
		return gif.Encode(w, img, &gif.Options{NumColors: 256})
	}
	if rgba, ok := img.(*image.RGBA); ok && !rgba.Opaque() {
		img = straight(rgba)
	}
	// libwebp's quality 100 with this encoder means lossless, which makes
	// photos larger than their source: 99 keeps it lossy.
	return webp.Encode(w, img, webp.Options{Quality: min(quality, 99), Method: 4})
}

// straight converts premultiplied RGBA to NRGBA.
func straight(m *image.RGBA) *image.NRGBA {
	b := m.Bounds()
	n := image.NewNRGBA(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			n.SetNRGBA(x, y, color.NRGBAModel.Convert(m.RGBAAt(x, y)).(color.NRGBA))
		}
	}
	return n
}
