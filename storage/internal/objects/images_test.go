package objects

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

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
	r, err := Sanitize(bytes.NewReader(in), "image/jpeg")
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
	r, err := Sanitize(bytes.NewReader(in), "image/png")
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
	if _, err := Sanitize(bytes.NewReader(bomb), "image/png"); !isRefusal(err, "") {
		t.Fatalf("Sanitize(bomb) = %v, want a 422", err)
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
	r, err := Sanitize(bytes.NewReader([]byte("%PDF-1.7")), "application/pdf")
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
	if _, err := Sanitize(bytes.NewReader(b.Bytes()), "image/jpeg"); err == nil {
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
		r, err := Sanitize(bytes.NewReader(withOrientation(b.Bytes(), tt.o, tt.order)), "image/jpeg")
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
