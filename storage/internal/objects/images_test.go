package objects

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// testMaxLen is the most bytes a test upload can deliver.
const testMaxLen = 1 << 20

// sanitize is Sanitize with a budget of the default size that no test
// image comes near.
func sanitize(r io.Reader, contentType string) (io.ReadCloser, error) {
	return Sanitize(context.Background(), NewImageBudget(DefaultImageMemoryLimit, time.Second), r, contentType, testMaxLen)
}

func testImage() image.Image {
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	img.Set(0, 0, color.RGBA{1, 2, 3, 255})
	return img
}

// withExif inserts an APP1 Exif segment carrying GPS text after SOI.
func withExif(t *testing.T, j []byte) []byte {
	t.Helper()
	payload := []byte("Exif\x00\x00MM\x00\x2a\x00\x00\x00\x08GPSLatitude=-1.2921")
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	out := append([]byte{}, j[:2]...)
	out = append(out, seg...)
	out = append(out, payload...)
	return append(out, j[2:]...)
}

func TestSanitizeStripsJPEGExif(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, testImage(), nil); err != nil {
		t.Fatal(err)
	}
	in := withExif(t, b.Bytes())
	r, err := sanitize(bytes.NewReader(in), "image/jpeg")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte("Exif")) || bytes.Contains(out, []byte("GPSLatitude")) {
		t.Error("EXIF survived re-encoding")
	}
	if _, err := jpeg.Decode(bytes.NewReader(out)); err != nil {
		t.Errorf("output is not a JPEG: %v", err)
	}
}

func pngChunk(typ string, data []byte) []byte {
	var b bytes.Buffer
	_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
	b.WriteString(typ)
	b.Write(data)
	_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	return b.Bytes()
}

func TestSanitizeStripsPNGText(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := png.Encode(&b, testImage()); err != nil {
		t.Fatal(err)
	}
	// Insert a tEXt chunk after IHDR (8 signature + 25 IHDR bytes).
	raw := b.Bytes()
	in := append(append(append([]byte{}, raw[:33]...), pngChunk("tEXt", []byte("Comment\x00secret place"))...), raw[33:]...)
	r, err := sanitize(bytes.NewReader(in), "image/png")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out, _ := io.ReadAll(r)
	if bytes.Contains(out, []byte("secret place")) {
		t.Error("tEXt survived")
	}
	if _, err := png.Decode(bytes.NewReader(out)); err != nil {
		t.Errorf("output is not a PNG: %v", err)
	}
}

func TestSanitizeRefusesAbsurdDimensions(t *testing.T) {
	t.Parallel()
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], 100000)
	binary.BigEndian.PutUint32(ihdr[4:], 100000)
	ihdr[8], ihdr[9] = 8, 2
	bomb := append([]byte("\x89PNG\r\n\x1a\n"), pngChunk("IHDR", ihdr)...)
	bomb = append(bomb, pngChunk("IDAT", []byte{0x78, 0x9c})...)
	if _, err := sanitize(bytes.NewReader(bomb), "image/png"); !isRefusal(err, "") {
		t.Fatalf("sanitize(bomb) = %v, want a 422", err)
	}
}

// isRefusal reports whether err is the 422 an image is refused with, its
// message containing msg.
func isRefusal(err error, msg string) bool {
	var e *storageerr.Error
	return errors.As(err, &e) && e.Status == 422 && strings.Contains(e.Message, msg)
}

func TestSanitizePassesOtherTypes(t *testing.T) {
	t.Parallel()
	r, err := sanitize(bytes.NewReader([]byte("%PDF-1.7")), "application/pdf")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(r); string(b) != "%PDF-1.7" {
		t.Errorf("got %q", b)
	}
}

func TestSanitizeRefusesMismatchedFormat(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	_ = png.Encode(&b, testImage())
	if _, err := sanitize(bytes.NewReader(b.Bytes()), "image/jpeg"); err == nil {
		t.Error("a PNG declared as image/jpeg was accepted")
	}
}

// withOrientation inserts an APP1 Exif segment whose IFD0 holds only the
// orientation tag.
func withOrientation(j []byte, o uint16, order binary.ByteOrder) []byte {
	var t bytes.Buffer
	if order == binary.LittleEndian {
		t.WriteString("II")
	} else {
		t.WriteString("MM")
	}
	_ = binary.Write(&t, order, uint16(42))
	_ = binary.Write(&t, order, uint32(8))
	_ = binary.Write(&t, order, uint16(1))
	_ = binary.Write(&t, order, uint16(0x0112))
	_ = binary.Write(&t, order, uint16(3))
	_ = binary.Write(&t, order, uint32(1))
	_ = binary.Write(&t, order, o)
	_ = binary.Write(&t, order, uint16(0))
	_ = binary.Write(&t, order, uint32(0))
	payload := append([]byte("Exif\x00\x00"), t.Bytes()...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	out := append([]byte{}, j[:2]...)
	out = append(out, seg...)
	out = append(out, payload...)
	return append(out, j[2:]...)
}

func TestSanitizeAppliesOrientation(t *testing.T) {
	t.Parallel()
	// 32×16: left half red, right half blue.
	img := image.NewRGBA(image.Rect(0, 0, 32, 16))
	for y := 0; y < 16; y++ {
		for x := 0; x < 32; x++ {
			c := color.RGBA{255, 0, 0, 255}
			if x >= 16 {
				c = color.RGBA{0, 0, 255, 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	_ = jpeg.Encode(&b, img, &jpeg.Options{Quality: 95})
	tests := []struct {
		o          uint16
		order      binary.ByteOrder
		w, h       int
		topOrLeft  string // colour at the first probe
		probeA     image.Point
		probeB     image.Point
		bottomOrRt string
	}{
		{1, binary.BigEndian, 32, 16, "red", image.Pt(4, 8), image.Pt(28, 8), "blue"},
		{3, binary.LittleEndian, 32, 16, "blue", image.Pt(4, 8), image.Pt(28, 8), "red"},
		{6, binary.BigEndian, 16, 32, "red", image.Pt(8, 4), image.Pt(8, 28), "blue"},
		{8, binary.LittleEndian, 16, 32, "blue", image.Pt(8, 4), image.Pt(8, 28), "red"},
	}
	for _, tt := range tests {
		r, err := sanitize(bytes.NewReader(withOrientation(b.Bytes(), tt.o, tt.order)), "image/jpeg")
		if err != nil {
			t.Fatal(err)
		}
		out, err := jpeg.Decode(r)
		_ = r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if out.Bounds().Dx() != tt.w || out.Bounds().Dy() != tt.h {
			t.Errorf("orientation %d: %v, want %dx%d", tt.o, out.Bounds(), tt.w, tt.h)
			continue
		}
		name := func(p image.Point) string {
			r, _, bl, _ := out.At(p.X, p.Y).RGBA()
			if r > bl {
				return "red"
			}
			return "blue"
		}
		if name(tt.probeA) != tt.topOrLeft || name(tt.probeB) != tt.bottomOrRt {
			t.Errorf("orientation %d: %s/%s, want %s/%s", tt.o, name(tt.probeA), name(tt.probeB), tt.topOrLeft, tt.bottomOrRt)
		}
	}
}

func FuzzExifOrientation(f *testing.F) {
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x08, 'E', 'x', 'i', 'f', 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if o := exifOrientation(b); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
	})
}

// TestOrientPixelTypes: every orientation maps each pixel of each pixel
// type image/jpeg decodes to (and the flat types orient copies as bytes)
// to where EXIF says, in an image of the same type; a subsampled YCbCr
// keeps its luma exact and its chroma plane dimensions.
func TestOrientPixelTypes(t *testing.T) {
	t.Parallel()
	const w, h = 7, 5
	r := image.Rect(0, 0, w, h)
	fill := func(pix []byte) {
		for i := range pix {
			pix[i] = byte(i*37 + 11)
		}
	}
	gray, gray16, rgba, nrgba, cmyk := image.NewGray(r), image.NewGray16(r), image.NewRGBA(r), image.NewNRGBA(r), image.NewCMYK(r)
	for _, p := range [][]byte{gray.Pix, gray16.Pix, rgba.Pix, nrgba.Pix, cmyk.Pix} {
		fill(p)
	}
	ycc := map[image.YCbCrSubsampleRatio]*image.YCbCr{}
	for _, ratio := range []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422,
		image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio440, image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410} {
		m := image.NewYCbCr(r, ratio)
		fill(m.Y)
		fill(m.Cb)
		fill(m.Cr)
		ycc[ratio] = m
	}
	for o := 2; o <= 8; o++ {
		for _, src := range []image.Image{gray, gray16, rgba, nrgba, cmyk, ycc[image.YCbCrSubsampleRatio444]} {
			dst := orient(src, o)
			if fmt.Sprintf("%T", dst) != fmt.Sprintf("%T", src) {
				t.Fatalf("orientation %d of %T gave %T", o, src, dst)
			}
			ref := orientReference(src, o)
			if !sameImage(dst, ref) {
				t.Errorf("orientation %d of %T differs from the reference", o, src)
			}
		}
		for ratio, src := range ycc {
			dst := orient(src, o).(*image.YCbCr)
			want := image.NewYCbCr(dst.Rect, turnedRatio(ratio, o))
			if len(dst.Cb) != len(want.Cb) || dst.SubsampleRatio != want.SubsampleRatio {
				t.Errorf("orientation %d of %v: chroma %v of %d samples", o, ratio, dst.SubsampleRatio, len(dst.Cb))
			}
			if !sameLuma(dst, src, o) {
				t.Errorf("orientation %d of %v: luma misplaced", o, ratio)
			}
		}
	}
}

// orientReference is the orientation orient applied before it kept pixel
// types: every pixel drawn into NRGBA, then moved.
func orientReference(img image.Image, o int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	dst := image.NewNRGBA(image.Rect(0, 0, dw, dh))
	for y := 0; y < dh; y++ {
		for x := 0; x < dw; x++ {
			var sx, sy int
			switch o {
			case 2:
				sx, sy = w-1-x, y
			case 3:
				sx, sy = w-1-x, h-1-y
			case 4:
				sx, sy = x, h-1-y
			case 5:
				sx, sy = y, x
			case 6:
				sx, sy = y, h-1-x
			case 7:
				sx, sy = w-1-y, h-1-x
			case 8:
				sx, sy = w-1-y, x
			}
			dst.Set(x, y, img.At(b.Min.X+sx, b.Min.Y+sy))
		}
	}
	return dst
}

// sameImage reports whether a and b have the same bounds and colours (in
// 8-bit NRGBA, the reference's precision).
func sameImage(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			if color.NRGBAModel.Convert(a.At(x, y)) != color.NRGBAModel.Convert(b.At(x, y)) {
				return false
			}
		}
	}
	return true
}

// sameLuma reports whether dst's luma is src's turned for orientation o.
func sameLuma(dst, src *image.YCbCr, o int) bool {
	ref := orientReference(&image.Gray{Pix: src.Y, Stride: src.YStride, Rect: src.Rect}, o)
	for y := 0; y < dst.Rect.Dy(); y++ {
		for x := 0; x < dst.Rect.Dx(); x++ {
			if dst.Y[dst.YOffset(x, y)] != ref.At(x, y).(color.NRGBA).R {
				return false
			}
		}
	}
	return true
}
