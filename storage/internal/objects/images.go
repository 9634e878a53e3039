package objects

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"runtime/pprof"
	"strconv"
	"sync"

	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// Image limits: a declared size beyond them is refused from the header,
// before any pixel is decoded (a 100000×100000 PNG is a few hundred bytes
// and would otherwise ask for 40 GB).
const (
	MaxImageSide   = 10000
	MaxImagePixels = 40_000_000
	// jpegQuality is the re-encoding quality of JPEG photos.
	jpegQuality = 90
	// maxImageHeader bounds the bytes image.DecodeConfig may read to find
	// the dimensions (JPEG APP segments come first).
	maxImageHeader = 1 << 20
	// maxHeldImageBytes bounds a WebP or GIF held in memory while its
	// metadata is stripped. Neither can be streamed: a WebP's RIFF size
	// comes first and its metadata chunks usually last, and nothing in a
	// GIF's header gives its length while a malformed block near its end
	// must refuse the whole file before a byte of it is stored. It is what
	// re-encoding the largest JPEG or PNG allowed already holds (4 bytes a
	// pixel).
	maxHeldImageBytes = 4 * MaxImagePixels
)

// CheckDimensions refuses an image whose declared size is absurd.
func CheckDimensions(w, h int) error {
	if w <= 0 || h <= 0 || w > MaxImageSide || h > MaxImageSide || int64(w)*int64(h) > MaxImagePixels {
		return storageerr.ImageRefused(http.StatusUnprocessableEntity,
			"image dimensions "+strconv.Itoa(w)+"x"+strconv.Itoa(h)+" exceed the limit ("+strconv.Itoa(MaxImageSide)+" per side, "+strconv.Itoa(MaxImagePixels)+" pixels)")
	}
	return nil
}

// Sanitize prepares an upload of the given (base) content type for storage.
//
//   - image/jpeg and image/png are decoded and re-encoded, which drops EXIF
//     (GPS location included) and every other metadata chunk; a JPEG's EXIF
//     orientation is applied to the pixels first;
//   - image/webp has its EXIF and XMP chunks cut out of the container (Go
//     has no WebP encoder) and is otherwise stored as sent;
//   - image/gif has its comment, plain text and application extensions
//     (XMP, ICC) cut out of the stream, the animation loop's excepted, and
//     bytes after its trailer dropped; its frames are stored as sent;
//   - anything else passes through untouched.
//
// For images, the header is read first and the declared dimensions checked
// (CheckDimensions) before decoding. JPEG and PNG bytes are streamed into
// the decoder, never held whole, and the re-encoded image is produced
// through a pipe as the returned reader is read; a WebP is held whole (at
// most maxHeldImageBytes), as its size field must be rewritten before the first
// byte goes out, and so is a GIF (under the same bound), as a malformed
// block anywhere in it refuses it; a GIF's logical screen and each of its
// frames are dimension-checked. Errors surface as *storageerr.Error for
// bad images.
//
// Memory: before an image is decoded or held, its cost (imagecost.go: the
// decoded pixels, the decoder's and encoder's buffers, the held bytes) is
// taken from budget, waiting for it at most until ctx is done or the
// budget's queue timeout passes; the units come back when the re-encoder
// ends or the held bytes are closed. maxLen bounds the bytes r can still
// deliver (the announced length or the size limit): a held image is read
// into one buffer of at most that size.
//
// The caller must Close the result on every path, and before it reads r
// again: Close stops a re-encoder that was not read to the end (a failed
// backend write) and waits for it, so no goroutine is left blocked on the
// pipe holding the decoded image, and none reads r once Close returns.
func Sanitize(ctx context.Context, budget *ImageBudget, r io.Reader, contentType string, maxLen int64) (io.ReadCloser, error) {
	t := BaseType(contentType)
	switch t {
	case "image/webp":
		return sanitizeWebP(ctx, budget, r, maxLen)
	case "image/gif":
		return sanitizeGIF(ctx, budget, r, maxLen)
	case "image/jpeg", "image/png":
	default:
		return io.NopCloser(r), nil
	}
	var head bytes.Buffer
	tee := io.TeeReader(io.LimitReader(r, maxImageHeader), &head)
	cfg, format, err := image.DecodeConfig(tee)
	if err != nil {
		return nil, storageerr.ImageRefused(http.StatusUnprocessableEntity, "image could not be decoded: "+err.Error())
	}
	if err := CheckDimensions(cfg.Width, cfg.Height); err != nil {
		return nil, err
	}
	if "image/"+format != t {
		return nil, storageerr.InvalidMimeType(t)
	}
	var cost int64
	orientation := 1
	var whole io.Reader
	if t == "image/jpeg" {
		orientation = exifOrientation(head.Bytes())
		l, ok := parseJPEGLayout(head.Bytes())
		whole = io.MultiReader(&head, r)
		switch {
		case !ok:
			cost = jpegWorstBytes(cfg.Width, cfg.Height)
		case l.nComp == 3 && !l.rgb():
			// Costed as YCbCr: a later marker must not make it RGB.
			whole = &jpegMarkerGuard{r: whole, skip: int64(l.end)}
			fallthrough
		default:
			cost = l.decodeBytes() + l.orientBytes(orientation)
		}
		cost += jpegEncodeOverhead
	} else {
		// Read on to the first IDAT chunk: a tRNS chunk makes a grayscale
		// image NRGBA.
		l := readPNGLayout(io.MultiReader(bytes.NewReader(head.Bytes()), tee))
		whole = io.MultiReader(&head, r)
		cost = l.decodeBytes(cfg.Width, cfg.Height) + pngEncodeBytes(cfg.Width)
	}
	g, err := budget.acquire(ctx, cost+int64(head.Cap()))
	if err != nil {
		return nil, err
	}
	return startReencoder(whole, t, orientation, g), nil
}

// heldImage is an image held whole in memory; Close gives its bytes back
// to the budget.
type heldImage struct {
	*bytes.Reader
	g *imageGrant
}

// Close drops the held bytes and releases their units.
func (h heldImage) Close() error {
	h.Reader.Reset(nil)
	h.g.release()
	return nil
}

// holdImage takes n bytes from budget and reads hdr (already read) and
// what follows it in r into one buffer of n bytes, stopping early at the
// end of r. Reading into one buffer sized up front holds exactly what was
// taken, where a growing one would hold up to twice as much while it
// copies.
func holdImage(ctx context.Context, budget *ImageBudget, r io.Reader, hdr []byte, n int64) ([]byte, *imageGrant, error) {
	g, err := budget.acquire(ctx, n)
	if err != nil {
		return nil, nil, err
	}
	buf := make([]byte, n)
	copy(buf, hdr)
	m, err := io.ReadFull(r, buf[len(hdr):])
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		g.release()
		return nil, nil, err
	}
	return buf[:len(hdr)+m], g, nil
}

// errAbandoned ends a re-encoder whose output is no longer wanted.
var errAbandoned = errors.New("re-encoded image abandoned")

// reencoder is the read end of a re-encoding goroutine's pipe.
type reencoder struct {
	*io.PipeReader
	stop chan struct{} // closed by Close: the goroutine's input fails
	done chan struct{} // closed when the goroutine has returned
	once sync.Once
}

// startReencoder re-encodes in from a goroutine labelled storage=reencode,
// so a goroutine dump shows what it is (and a test can count them). The
// goroutine releases g when it ends, before done is closed.
func startReencoder(in io.Reader, t string, orientation int, g *imageGrant) *reencoder {
	pr, pw := io.Pipe()
	re := &reencoder{PipeReader: pr, stop: make(chan struct{}), done: make(chan struct{})}
	go pprof.Do(context.Background(), pprof.Labels("storage", "reencode"), func(context.Context) {
		defer close(re.done)
		defer g.release()
		pw.CloseWithError(reencode(pw, stopReader{r: in, stop: re.stop}, t, orientation))
	})
	return re
}

// Close abandons the output: a decoder still reading fails at its next
// read, an encoder blocked on the pipe fails its write. It returns once
// the goroutine has (and has given its memory back to the budget), which
// may wait for a read of the upload in flight.
func (re *reencoder) Close() error {
	re.once.Do(func() { close(re.stop) })
	re.PipeReader.CloseWithError(errAbandoned)
	<-re.done
	return nil
}

// stopReader fails once stop is closed, so an abandoned decoder stops
// pulling the rest of the upload.
type stopReader struct {
	r    io.Reader
	stop <-chan struct{}
}

func (s stopReader) Read(p []byte) (int, error) {
	select {
	case <-s.stop:
		return 0, errAbandoned
	default:
		return s.r.Read(p)
	}
}

func reencode(w io.Writer, r io.Reader, t string, orientation int) error {
	var img image.Image
	var err error
	if t == "image/jpeg" {
		img, err = jpeg.Decode(r)
	} else {
		img, err = png.Decode(r)
	}
	if err != nil {
		return storageerr.ImageRefused(http.StatusUnprocessableEntity, "image could not be decoded: "+err.Error())
	}
	img = orient(img, orientation)
	if t == "image/jpeg" {
		err = jpeg.Encode(w, img, &jpeg.Options{Quality: jpegQuality})
	} else {
		err = (&png.Encoder{CompressionLevel: png.DefaultCompression}).Encode(w, img)
	}
	if err != nil {
		return fmt.Errorf("re-encode image: %w", err)
	}
	return nil
}

// gif is imported for its decoder registration: DecodeConfig then names a
// GIF declared as image/jpeg or image/png as such.
var _ = gif.Decode
