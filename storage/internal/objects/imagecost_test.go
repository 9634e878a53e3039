package objects

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"runtime"
	"testing"
)

// pngSpec describes a uniform PNG built by flatPNG.
type pngSpec struct {
	w, h       int
	colorType  byte
	depth      byte
	interlaced bool
	// trns adds a tRNS chunk before the pixel data.
	trns bool
}

// flatPNG is a PNG of all-zero samples with the given layout, written
// row by row (so a large one costs little to build), paletted ones with a
// palette of 2^depth entries.
func flatPNG(t testing.TB, s pngSpec) []byte {
	t.Helper()
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(s.w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(s.h))
	ihdr[8], ihdr[9] = s.depth, s.colorType
	if s.interlaced {
		ihdr[12] = 1
	}
	out.Write(pngChunk("IHDR", ihdr))
	l := pngLayout{depth: s.depth, colorType: s.colorType}
	if s.colorType == pngPaletted {
		out.Write(pngChunk("PLTE", make([]byte, 3<<s.depth)))
	}
	if s.trns {
		switch s.colorType {
		case pngGray:
			out.Write(pngChunk("tRNS", []byte{0, 1}))
		case pngTrueColor:
			out.Write(pngChunk("tRNS", []byte{0, 1, 0, 1, 0, 1}))
		case pngPaletted:
			out.Write(pngChunk("tRNS", []byte{0}))
		}
	}
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	rows := func(w, h int) {
		row := make([]byte, 1+(int(l.pngBits())*w+7)/8)
		for y := 0; y < h; y++ {
			_, _ = zw.Write(row)
		}
	}
	if s.interlaced {
		for _, p := range adam7 {
			pw, ph := (s.w-p[0]+p[1]-1)/p[1], (s.h-p[2]+p[3]-1)/p[3]
			if pw > 0 && ph > 0 {
				rows(pw, ph)
			}
		}
	} else {
		rows(s.w, s.h)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	out.Write(pngChunk("IDAT", z.Bytes()))
	out.Write(pngChunk("IEND", nil))
	return out.Bytes()
}

// jpegSpec describes a uniform mid-grey JPEG built by flatJPEG.
type jpegSpec struct {
	w, h int
	// hv is each component's sampling factors (H<<4 | V): 1, 3 or 4 of
	// them.
	hv []byte
	// ids are the component ids; nil is 1, 2, 3, 4.
	ids         []byte
	progressive bool
	// before are segments written between SOI and the frame header,
	// after are written between the scan and EOI.
	before, after [][]byte
}

// jpegSegment is a marker segment: FF, marker, length, payload.
func jpegSegment(marker byte, payload []byte) []byte {
	s := []byte{0xFF, marker, 0, 0}
	binary.BigEndian.PutUint16(s[2:], uint16(len(payload)+2))
	return append(s, payload...)
}

// JFIF and Adobe segments.
var (
	jfifAPP0 = jpegSegment(jpegAPP0, []byte("JFIF\x00\x01\x02\x00\x00\x01\x00\x01\x00\x00"))
	jfxxAPP0 = jpegSegment(jpegAPP0, []byte("JFXX\x00\x13"))
)

func adobeAPP14(transform byte) []byte {
	return jpegSegment(jpegAPP14, []byte{'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0, transform})
}

// flatJPEG writes a JPEG whose every block has only a zero DC difference:
// with one-symbol Huffman tables each block is one bit per scan, so any
// layout and any size is cheap to build. A progressive one has a single
// DC scan over every component.
func flatJPEG(s jpegSpec) []byte {
	n := len(s.hv)
	ids := s.ids
	if ids == nil {
		ids = []byte{1, 2, 3, 4}[:n]
	}
	var b bytes.Buffer
	b.Write([]byte{0xFF, 0xD8})
	for _, seg := range s.before {
		b.Write(seg)
	}
	b.Write(jpegSegment(0xDB, append([]byte{0}, bytes.Repeat([]byte{1}, 64)...)))
	sof := []byte{8, byte(s.h >> 8), byte(s.h), byte(s.w >> 8), byte(s.w), byte(n)}
	for c := 0; c < n; c++ {
		sof = append(sof, ids[c], s.hv[c], 0)
	}
	marker := byte(jpegSOF0)
	if s.progressive {
		marker = jpegSOF2
	}
	b.Write(jpegSegment(marker, sof))
	// One code of length 1 for symbol 0: a zero DC difference, or EOB.
	table := append([]byte{1}, make([]byte, 15)...)
	b.Write(jpegSegment(0xC4, append(append([]byte{0x00}, table...), 0)))
	b.Write(jpegSegment(0xC4, append(append([]byte{0x10}, table...), 0)))
	sos := []byte{byte(n)}
	for c := 0; c < n; c++ {
		sos = append(sos, ids[c], 0)
	}
	bitsPerBlock := 2 // DC, then EOB
	if s.progressive {
		sos = append(sos, 0, 0, 0) // DC only
		bitsPerBlock = 1
	} else {
		sos = append(sos, 0, 63, 0)
	}
	b.Write(jpegSegment(jpegSOS, sos))
	blocks := ((s.w + 7) / 8) * ((s.h + 7) / 8)
	if n > 1 {
		h0, v0 := int(s.hv[0]>>4), int(s.hv[0]&0xF)
		per := 0
		for _, hv := range s.hv {
			per += int(hv>>4) * int(hv&0xF)
		}
		blocks = ((s.w + 8*h0 - 1) / (8 * h0)) * ((s.h + 8*v0 - 1) / (8 * v0)) * per
	}
	bits := blocks * bitsPerBlock
	b.Write(make([]byte, bits/8))
	if bits%8 != 0 {
		b.WriteByte(0xFF >> (bits % 8))
	}
	for _, seg := range s.after {
		b.Write(seg)
	}
	b.Write([]byte{0xFF, 0xD9})
	return b.Bytes()
}

// allocated is the bytes f allocates. Callers are not parallel, so little
// else allocates meanwhile.
func allocated(f func()) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return int64(after.TotalAlloc - before.TotalAlloc)
}

// pixBytes is the size of the pixel buffers of a decoded image.
func pixBytes(img image.Image) int64 {
	switch m := img.(type) {
	case *image.Gray:
		return int64(len(m.Pix))
	case *image.Gray16:
		return int64(len(m.Pix))
	case *image.Paletted:
		return int64(len(m.Pix))
	case *image.RGBA:
		return int64(len(m.Pix))
	case *image.NRGBA:
		return int64(len(m.Pix))
	case *image.RGBA64:
		return int64(len(m.Pix))
	case *image.NRGBA64:
		return int64(len(m.Pix))
	case *image.CMYK:
		return int64(len(m.Pix))
	case *image.YCbCr:
		return int64(len(m.Y) + len(m.Cb) + len(m.Cr))
	}
	panic(fmt.Sprintf("pixel type %T", img))
}

// checkBound fails unless est is at least what was measured and at most
// 10% plus a fixed overhead above it.
func checkBound(t *testing.T, what string, est, measured, overhead int64) {
	t.Helper()
	if measured > est {
		t.Errorf("%s: allocates %d bytes, more than the estimate %d", what, measured, est)
	}
	if est > measured+measured/10+overhead {
		t.Errorf("%s: estimate %d is loose: %d allocated", what, est, measured)
	}
}

// TestPNGCost: for every PNG colour type, bit depth, interlacing and
// transparency, the layout read from the header names the pixel type
// image/png decodes to, and the estimate bounds (tightly) what the decode
// allocates. Not parallel: it measures the heap.
func TestPNGCost(t *testing.T) {
	const w, h = 301, 203
	tests := []pngSpec{
		{colorType: pngGray, depth: 1}, {colorType: pngGray, depth: 2}, {colorType: pngGray, depth: 4},
		{colorType: pngGray, depth: 8}, {colorType: pngGray, depth: 16},
		{colorType: pngGray, depth: 4, trns: true}, {colorType: pngGray, depth: 8, trns: true}, {colorType: pngGray, depth: 16, trns: true},
		{colorType: pngGray, depth: 8, interlaced: true}, {colorType: pngGray, depth: 8, interlaced: true, trns: true},
		{colorType: pngTrueColor, depth: 8}, {colorType: pngTrueColor, depth: 16}, {colorType: pngTrueColor, depth: 8, trns: true},
		{colorType: pngTrueColor, depth: 16, trns: true},
		{colorType: pngPaletted, depth: 1}, {colorType: pngPaletted, depth: 2}, {colorType: pngPaletted, depth: 4},
		{colorType: pngPaletted, depth: 8}, {colorType: pngPaletted, depth: 8, trns: true}, {colorType: pngPaletted, depth: 2, interlaced: true},
		{colorType: pngGrayAlpha, depth: 8}, {colorType: pngGrayAlpha, depth: 16},
		{colorType: pngRGBA, depth: 8}, {colorType: pngRGBA, depth: 16},
		{colorType: pngRGBA, depth: 8, interlaced: true}, {colorType: pngRGBA, depth: 16, interlaced: true},
	}
	for _, tt := range tests {
		tt.w, tt.h = w, h
		name := fmt.Sprintf("type %d depth %d interlaced %v tRNS %v", tt.colorType, tt.depth, tt.interlaced, tt.trns)
		data := flatPNG(t, tt)
		l := readPNGLayout(bytes.NewReader(data))
		if !l.headerParsed || !l.complete || l.transparent != tt.trns {
			t.Errorf("%s: layout %+v", name, l)
			continue
		}
		var img image.Image
		var err error
		measured := allocated(func() { img, err = png.Decode(bytes.NewReader(data)) })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got, want := pixBytes(img), int64(w*h)*l.pixelBytes(); got != want {
			t.Errorf("%s: decoded to %T of %d bytes, layout says %d", name, img, got, want)
		}
		checkBound(t, name, l.decodeBytes(w, h), measured, pngDecodeOverhead)
	}
}

// TestPNGCostUnknown: a header the layout reader cannot follow to the
// pixel data is costed as the worst its colour type allows.
func TestPNGCostUnknown(t *testing.T) {
	t.Parallel()
	gray := flatPNG(t, pngSpec{w: 100, h: 100, colorType: pngGray, depth: 8})
	cut := readPNGLayout(bytes.NewReader(gray[:40])) // IHDR, not the IDAT
	if !cut.headerParsed || cut.complete || cut.pixelBytes() != 4 {
		t.Errorf("cut before IDAT: %+v, %d bytes a pixel, want 4", cut, cut.pixelBytes())
	}
	none := readPNGLayout(bytes.NewReader(gray[:20]))
	if none.headerParsed || none.pixelBytes() != 8 || none.decodeBytes(100, 100) < 2*8*100*100 {
		t.Errorf("no IHDR: %+v, %d bytes", none, none.decodeBytes(100, 100))
	}
}

// jpegCases are JPEG layouts image/jpeg decodes differently.
var jpegCases = []struct {
	name string
	spec jpegSpec
	want string // the decoded pixel type
}{
	{"gray", jpegSpec{hv: []byte{0x11}}, "*image.Gray"},
	{"gray progressive", jpegSpec{hv: []byte{0x22}, progressive: true}, "*image.Gray"},
	{"4:4:4", jpegSpec{hv: []byte{0x11, 0x11, 0x11}}, "*image.YCbCr"},
	{"4:2:2", jpegSpec{hv: []byte{0x21, 0x11, 0x11}}, "*image.YCbCr"},
	{"4:2:0", jpegSpec{hv: []byte{0x22, 0x11, 0x11}}, "*image.YCbCr"},
	{"4:4:0", jpegSpec{hv: []byte{0x12, 0x11, 0x11}}, "*image.YCbCr"},
	{"4:1:1", jpegSpec{hv: []byte{0x41, 0x11, 0x11}}, "*image.YCbCr"},
	{"4:1:0", jpegSpec{hv: []byte{0x42, 0x11, 0x11}}, "*image.YCbCr"},
	{"4:2:0 progressive", jpegSpec{hv: []byte{0x22, 0x11, 0x11}, progressive: true}, "*image.YCbCr"},
	{"4:4:4 progressive", jpegSpec{hv: []byte{0x11, 0x11, 0x11}, progressive: true}, "*image.YCbCr"},
	{"RGB ids", jpegSpec{hv: []byte{0x11, 0x11, 0x11}, ids: []byte("RGB")}, "*image.RGBA"},
	{"Adobe RGB", jpegSpec{hv: []byte{0x11, 0x11, 0x11}, before: [][]byte{adobeAPP14(0)}}, "*image.RGBA"},
	{"Adobe RGB progressive", jpegSpec{hv: []byte{0x11, 0x11, 0x11}, before: [][]byte{adobeAPP14(0)}, progressive: true}, "*image.RGBA"},
	{"JFIF then Adobe RGB", jpegSpec{hv: []byte{0x22, 0x11, 0x11}, before: [][]byte{jfifAPP0, adobeAPP14(0)}}, "*image.YCbCr"},
	{"JFIF, JFXX, Adobe RGB", jpegSpec{hv: []byte{0x11, 0x11, 0x11}, before: [][]byte{jfifAPP0, jfxxAPP0, adobeAPP14(0)}}, "*image.RGBA"},
	{"CMYK", jpegSpec{hv: []byte{0x11, 0x11, 0x11, 0x11}, before: [][]byte{adobeAPP14(0)}}, "*image.CMYK"},
	{"YCCK 2x2", jpegSpec{hv: []byte{0x22, 0x11, 0x11, 0x22}, before: [][]byte{adobeAPP14(2)}}, "*image.CMYK"},
	{"CMYK progressive", jpegSpec{hv: []byte{0x11, 0x11, 0x11, 0x11}, before: [][]byte{adobeAPP14(0)}, progressive: true}, "*image.CMYK"},
}

// TestJPEGCost: for every component count, subsampling, colour transform
// and progressive coding image/jpeg treats apart, with and without an
// orientation to apply, the layout read from the header bounds (tightly)
// what decoding and turning the image allocate. Not parallel: it measures
// the heap.
func TestJPEGCost(t *testing.T) {
	const w, h = 301, 203
	for _, tt := range jpegCases {
		for _, o := range []int{1, 3, 6} {
			name := fmt.Sprintf("%s, orientation %d", tt.name, o)
			s := tt.spec
			s.w, s.h = w, h
			data := flatJPEG(s)
			l, ok := parseJPEGLayout(data)
			if !ok || l.width != w || l.height != h {
				t.Fatalf("%s: layout %+v, %v", name, l, ok)
			}
			var img image.Image
			var err error
			measured := allocated(func() {
				img, err = jpeg.Decode(bytes.NewReader(data))
				if err == nil {
					img = orient(img, o)
				}
			})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got := fmt.Sprintf("%T", img); got != tt.want {
				t.Errorf("%s: decoded to %s, want %s", name, got, tt.want)
			}
			if b := img.Bounds(); (o < 5 && (b.Dx() != w || b.Dy() != h)) || (o >= 5 && (b.Dx() != h || b.Dy() != w)) {
				t.Errorf("%s: turned to %v", name, b)
			}
			checkBound(t, name, l.decodeBytes()+l.orientBytes(o), measured, jpegDecodeOverhead)
		}
	}
}

// TestSanitizeTakesCost: Sanitize takes an image's whole cost from the
// budget before decoding, holds it while the re-encoder runs, and gives it
// back when the re-encoder ends; a held WebP or GIF takes its buffer until
// Close.
func TestSanitizeTakesCost(t *testing.T) {
	t.Parallel()
	jpg := flatJPEG(jpegSpec{w: 640, h: 480, hv: []byte{0x22, 0x11, 0x11}})
	l, _ := parseJPEGLayout(jpg)
	pngData := flatPNG(t, pngSpec{w: 640, h: 480, colorType: pngRGBA, depth: 8})
	pl := readPNGLayout(bytes.NewReader(pngData))
	gif := gifFile(1, 1, gifFrame(1, 1))
	tests := []struct {
		name, ct string
		in       []byte
		min, max int64 // bounds of the cost: the head buffer's size varies
	}{
		{"jpeg", "image/jpeg", jpg, l.decodeBytes() + jpegEncodeOverhead, l.decodeBytes() + jpegEncodeOverhead + maxImageHeader},
		{"jpeg turned", "image/jpeg", withOrientation(jpg, 6, binary.BigEndian),
			l.decodeBytes() + l.orientBytes(6) + jpegEncodeOverhead, l.decodeBytes() + l.orientBytes(6) + jpegEncodeOverhead + maxImageHeader},
		{"png", "image/png", pngData, pl.decodeBytes(640, 480) + pngEncodeBytes(640), pl.decodeBytes(640, 480) + pngEncodeBytes(640) + maxImageHeader},
		{"webp", "image/webp", webpLossless, int64(len(webpLossless)) + 1, int64(len(webpLossless)) + 1},
		{"gif", "image/gif", gif, testMaxLen + 1, testMaxLen + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := NewImageBudget(DefaultImageMemoryLimit, 0)
			// A reader that stops after the header keeps the re-encoder
			// (and its units) running until the test lets it go.
			gate := make(chan struct{})
			in := io.MultiReader(bytes.NewReader(tt.in), gated{gate})
			if tt.ct == "image/webp" || tt.ct == "image/gif" {
				in = bytes.NewReader(tt.in)
			}
			r, err := Sanitize(t.Context(), b, in, tt.ct, testMaxLen)
			if err != nil {
				t.Fatal(err)
			}
			if got := b.InUse(); got < tt.min || got > tt.max {
				t.Errorf("in use %d, want %d to %d", got, tt.min, tt.max)
			}
			close(gate)
			_, _ = io.Copy(io.Discard, r)
			_ = r.Close()
			if got := b.InUse(); got != 0 {
				t.Errorf("in use after Close: %d", got)
			}
		})
	}
}

// gated reads nothing until its channel is closed, then ends.
type gated struct{ c chan struct{} }

func (g gated) Read([]byte) (int, error) {
	<-g.c
	return 0, io.EOF
}

// FuzzJPEGLayout: on any input the layout reader never panics; on a JPEG
// that image/jpeg accepts, it reads the same dimensions from the header
// Sanitize keeps, and the image decoded as Sanitize decodes it (through
// jpegMarkerGuard when costed as YCbCr) has the pixel type and size the
// cost was worked out for.
func FuzzJPEGLayout(f *testing.F) {
	seeds := []jpegSpec{
		{hv: []byte{0x11}},
		{hv: []byte{0x22, 0x11, 0x11}, progressive: true},
		{hv: []byte{0x21, 0x11, 0x11}, before: [][]byte{jfifAPP0}},
		{hv: []byte{0x11, 0x11, 0x11}, ids: []byte("RGB")},
		{hv: []byte{0x22, 0x11, 0x11}, after: [][]byte{adobeAPP14(0)}},
		{hv: []byte{0x11, 0x11, 0x11}, before: [][]byte{jfifAPP0, adobeAPP14(0)}, after: [][]byte{jfxxAPP0}},
		{hv: []byte{0x22, 0x11, 0x11, 0x22}, before: [][]byte{adobeAPP14(2)}},
		{hv: []byte{0x11, 0x11, 0x11, 0x11}, progressive: true},
	}
	for _, s := range seeds {
		s.w, s.h = 17, 9
		f.Add(flatJPEG(s))
	}
	f.Add(withOrientation(flatJPEG(jpegSpec{w: 8, h: 8, hv: []byte{0x11}}), 6, binary.BigEndian))
	f.Add([]byte{0xFF, 0xD8, 0x00, 0xFF, 0xFF, 0x00, 0xFF, 0xD0, 0xFF, 0xC0, 0x00})
	f.Add([]byte{0xFF, 0xD8})
	f.Fuzz(func(t *testing.T, b []byte) {
		l, ok := parseJPEGLayout(b)
		var head bytes.Buffer
		cfg, err := jpeg.DecodeConfig(io.TeeReader(bytes.NewReader(b), &head))
		if err != nil {
			return
		}
		l, ok = parseJPEGLayout(head.Bytes())
		if !ok || l.width != cfg.Width || l.height != cfg.Height {
			t.Fatalf("image/jpeg reads %dx%d, the layout %+v (ok %v)", cfg.Width, cfg.Height, l, ok)
		}
		if cfg.Width*cfg.Height > 1<<16 {
			return
		}
		var r io.Reader = bytes.NewReader(b)
		if l.nComp == 3 && !l.rgb() {
			r = &jpegMarkerGuard{r: r, skip: int64(l.end)}
		}
		img, err := jpeg.Decode(r)
		if err != nil {
			return
		}
		want := "*image.YCbCr"
		switch {
		case l.nComp == 1:
			want = "*image.Gray"
		case l.nComp == 4:
			want = "*image.CMYK"
		case l.rgb():
			want = "*image.RGBA"
		}
		if got := fmt.Sprintf("%T", img); got != want {
			t.Fatalf("decoded to %s, costed as %s (%+v)", got, want, l)
		}
		if pixBytes(img) > l.decodeBytes() {
			t.Fatalf("decoded image of %d bytes, cost %d", pixBytes(img), l.decodeBytes())
		}
	})
}

// FuzzPNGLayout: on any input the layout reader never panics; on a PNG
// that image/png accepts, it reads the same dimensions, and the decoded
// image takes the bytes a pixel the cost was worked out for (no more when
// the header could not be followed to the pixel data).
func FuzzPNGLayout(f *testing.F) {
	for _, s := range []pngSpec{
		{colorType: pngGray, depth: 8, trns: true},
		{colorType: pngGray, depth: 16},
		{colorType: pngPaletted, depth: 4, interlaced: true},
		{colorType: pngTrueColor, depth: 8, trns: true},
		{colorType: pngRGBA, depth: 16, interlaced: true},
	} {
		s.w, s.h = 9, 5
		f.Add(flatPNG(f, s))
	}
	f.Add([]byte("\x89PNG\r\n\x1a\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = readPNGLayout(bytes.NewReader(b))
		var head bytes.Buffer
		cfg, err := png.DecodeConfig(io.TeeReader(bytes.NewReader(b), &head))
		if err != nil {
			return
		}
		l := readPNGLayout(io.MultiReader(bytes.NewReader(head.Bytes()), bytes.NewReader(b[head.Len():])))
		if !l.headerParsed || l.width != cfg.Width || l.height != cfg.Height {
			t.Fatalf("image/png reads %dx%d, the layout %+v", cfg.Width, cfg.Height, l)
		}
		if cfg.Width*cfg.Height > 1<<16 {
			return
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			return
		}
		got, want := pixBytes(img), int64(cfg.Width*cfg.Height)*l.pixelBytes()
		if got > want || (l.complete && got != want) {
			t.Fatalf("decoded to %T of %d bytes, layout %+v says %d", img, got, l, want)
		}
		if l.decodeBytes(cfg.Width, cfg.Height) < want {
			t.Fatalf("cost %d below the image's %d bytes", l.decodeBytes(cfg.Width, cfg.Height), want)
		}
	})
}
