package objects

import (
	"bytes"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"strconv"

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
//   - image/gif has its dimensions checked and is stored as sent;
//   - anything else passes through untouched.
//
// For images, the header is read first and the declared dimensions checked
// (CheckDimensions) before decoding. The compressed bytes are streamed into
// the decoder, never held whole; the re-encoded image is produced through a
// pipe as the returned reader is read. Errors surface from that reader as
// *storageerr.Error for bad images.
func Sanitize(r io.Reader, contentType string) (io.Reader, error) {
	t := BaseType(contentType)
	if t != "image/jpeg" && t != "image/png" && t != "image/gif" {
		return r, nil
	}
	var head bytes.Buffer
	cfg, format, err := image.DecodeConfig(io.TeeReader(io.LimitReader(r, maxImageHeader), &head))
	if err != nil {
		return nil, storageerr.ImageRefused(http.StatusUnprocessableEntity, "image could not be decoded: "+err.Error())
	}
	if err := CheckDimensions(cfg.Width, cfg.Height); err != nil {
		return nil, err
	}
	if "image/"+format != t {
		return nil, storageerr.InvalidMimeType(t)
	}
	whole := io.MultiReader(&head, r)
	if t == "image/gif" {
		return whole, nil
	}
	orientation := 1
	if t == "image/jpeg" {
		orientation = exifOrientation(head.Bytes())
	}
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(reencode(pw, whole, t, orientation))
	}()
	return pr, nil
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

// gif is imported for its decoder registration (DecodeConfig on GIFs).
var _ = gif.Decode
