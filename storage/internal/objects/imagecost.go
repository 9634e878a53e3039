package objects

import (
	"encoding/binary"
	"errors"
	"image"
	"io"
)

// The cost of an image upload is an upper bound on the bytes its
// processing holds at its peak. It is worked out from the header, before
// any pixel is decoded, and follows what image/png and image/jpeg allocate:
// the decoded image at the pixel type the decoder picks, the decoder's
// working buffers (Adam7 passes, progressive coefficients, the planes a
// CMYK or RGB JPEG is converted from), the turned copy for an EXIF
// orientation, and the encoder's buffers. Short-lived per-pixel garbage
// (color.Color values boxed by At) is not held and not counted; Go's
// collector reclaims it.
const (
	// pngDecodeOverhead covers the zlib reader (32 KiB window, tables)
	// and the decoder's state.
	pngDecodeOverhead = 64 << 10
	// pngEncodeOverhead covers the deflate compressor (about 800 KiB at
	// the default level) and the 32 KiB chunk writer; the row buffers are
	// counted apart.
	pngEncodeOverhead = 1 << 20
	// jpegDecodeOverhead covers the decoder's state, Huffman tables and
	// read buffer.
	jpegDecodeOverhead = 64 << 10
	// jpegEncodeOverhead covers the encoder's state and write buffer.
	jpegEncodeOverhead = 64 << 10
	// jpegBlockBytes is one progressive coefficient block ([64]int32).
	jpegBlockBytes = 256
)

// pngLayout is what a PNG's chunks before its pixel data say about its
// decoding.
type pngLayout struct {
	width, height    int
	depth, colorType byte
	interlaced       bool
	transparent      bool // a tRNS chunk precedes the pixel data
	complete         bool // the chunks were read up to the first IDAT
	headerParsed     bool // the IHDR was read
}

// PNG colour types (IHDR byte 9).
const (
	pngGray      = 0
	pngTrueColor = 2
	pngPaletted  = 3
	pngGrayAlpha = 4
	pngRGBA      = 6
)

// readPNGLayout reads a PNG's signature and chunks from r up to the
// header of its first IDAT chunk. An IHDR it cannot read leaves
// headerParsed false; chunks it cannot read to the IDAT (a read error, a
// header beyond what r holds) leave complete false, and the caller then
// assumes a transparency chunk.
func readPNGLayout(r io.Reader) pngLayout {
	var l pngLayout
	var b [8 + 8 + 13 + 4]byte // signature, chunk header, IHDR, CRC
	if _, err := io.ReadFull(r, b[:]); err != nil || string(b[:8]) != "\x89PNG\r\n\x1a\n" ||
		string(b[12:16]) != "IHDR" || binary.BigEndian.Uint32(b[8:]) != 13 {
		return l
	}
	ihdr := b[16:29]
	w, h := binary.BigEndian.Uint32(ihdr[0:]), binary.BigEndian.Uint32(ihdr[4:])
	if w == 0 || h == 0 || w > 1<<31-1 || h > 1<<31-1 {
		return l
	}
	l.width, l.height = int(w), int(h)
	l.depth, l.colorType = ihdr[8], ihdr[9]
	l.interlaced = ihdr[12] != 0
	l.headerParsed = true
	for {
		var ch [8]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			return l
		}
		switch string(ch[4:]) {
		case "IDAT":
			l.complete = true
			return l
		case "tRNS":
			l.transparent = true
		}
		n := int64(binary.BigEndian.Uint32(ch[:])) + 4 // payload and CRC
		if c, err := io.CopyN(io.Discard, r, n); err != nil || c != n {
			return l
		}
	}
}

// pngBits is the bits a pixel takes in a PNG row.
func (l pngLayout) pngBits() int64 {
	channels := int64(1)
	switch l.colorType {
	case pngTrueColor:
		channels = 3
	case pngGrayAlpha:
		channels = 2
	case pngRGBA:
		channels = 4
	}
	return channels * int64(l.depth)
}

// pixelBytes is the bytes a pixel takes in the image image/png decodes
// to: Gray or Paletted 1, Gray16 2, RGBA or NRGBA 4, RGBA64 or NRGBA64 8;
// a grayscale image with a tRNS chunk becomes NRGBA or NRGBA64. An
// unreadable or incomplete layout gets the largest that its header allows.
func (l pngLayout) pixelBytes() int64 {
	if !l.headerParsed {
		return 8
	}
	wide := l.depth == 16
	switch l.colorType {
	case pngPaletted:
		return 1
	case pngGray:
		transparent := l.transparent || !l.complete
		switch {
		case wide && transparent:
			return 8
		case wide:
			return 2
		case transparent:
			return 4
		}
		return 1
	}
	if wide {
		return 8
	}
	return 4
}

// adam7 is the Adam7 interlacing: each pass's offset and step in x and y.
var adam7 = [7][4]int{{0, 8, 0, 8}, {4, 8, 0, 8}, {0, 4, 4, 8}, {2, 4, 0, 4}, {0, 2, 2, 4}, {1, 2, 0, 2}, {0, 1, 1, 2}}

// decodeBytes is what decoding a PNG of this layout and width×height
// holds: the image, each Adam7 pass's image (an interlaced PNG is decoded
// pass by pass, then merged), and two row buffers per pass.
func (l pngLayout) decodeBytes(width, height int) int64 {
	w, h := int64(width), int64(height)
	bpp := l.pixelBytes()
	bits := l.pngBits()
	if !l.headerParsed {
		bits = 64
	}
	rows := func(w int64) int64 { return 2 * (1 + (bits*w+7)/8) }
	n := w*h*bpp + pngDecodeOverhead
	if !l.interlaced && l.headerParsed {
		return n + rows(w)
	}
	for _, p := range adam7 {
		pw := (w - int64(p[0]) + int64(p[1]) - 1) / int64(p[1])
		ph := (h - int64(p[2]) + int64(p[3]) - 1) / int64(p[3])
		if pw > 0 && ph > 0 {
			n += pw*ph*bpp + rows(pw)
		}
	}
	return n
}

// pngEncodeBytes is what re-encoding a PNG width pixels wide holds: the
// compressor and six row buffers (five filter candidates and the previous
// row) of at most 8 bytes a pixel.
func pngEncodeBytes(width int) int64 {
	return pngEncodeOverhead + 6*(1+8*int64(width))
}

// JPEG markers the layout reader knows.
const (
	jpegSOF0  = 0xC0
	jpegSOF1  = 0xC1
	jpegSOF2  = 0xC2
	jpegSOS   = 0xDA
	jpegEOI   = 0xD9
	jpegRST0  = 0xD0
	jpegRST7  = 0xD7
	jpegAPP0  = 0xE0
	jpegAPP14 = 0xEE
)

// jpegLayout is what a JPEG's segments before its first scan say about
// its decoding, read as image/jpeg reads them.
type jpegLayout struct {
	width, height int
	nComp         int
	h, v          [4]int // sampling factors; a grayscale image's are 1
	ids           [4]byte
	progressive   bool
	jfif          bool // the last APP0 seen is a JFIF one
	adobe         bool // an Adobe APP14 was seen
	adobeColor    byte // its transform: 0 is RGB or CMYK
	// end is the offset just past the last segment read: the start of
	// the first scan's data when the first SOS was reached.
	end int
}

// parseJPEGLayout walks the markers of the JPEG bytes b up to the first
// SOS, or as far as b goes, with image/jpeg's rules (extraneous bytes and
// fill bytes skipped, RST markers ignored); it stops before a second frame
// header, which image/jpeg refuses. ok is false when no usable frame
// header (SOF0, SOF1 or SOF2 with 1, 3 or 4 components, 8-bit samples,
// sampling factors image/jpeg accepts) was found.
func parseJPEGLayout(b []byte) (l jpegLayout, ok bool) {
	if len(b) < 2 || b[0] != 0xFF || b[1] != 0xD8 {
		return l, false
	}
	i := 2
	l.end = i
	for {
		if i+2 > len(b) {
			return l, ok
		}
		t0, t1 := b[i], b[i+1]
		i += 2
		for t0 != 0xFF {
			if i >= len(b) {
				return l, ok
			}
			t0, t1 = t1, b[i]
			i++
		}
		marker := t1
		if marker == 0 {
			continue
		}
		for marker == 0xFF {
			if i >= len(b) {
				return l, ok
			}
			marker = b[i]
			i++
		}
		if marker == jpegEOI {
			return l, ok
		}
		if marker >= jpegRST0 && marker <= jpegRST7 {
			l.end = i
			continue
		}
		if i+2 > len(b) {
			return l, ok
		}
		n := int(b[i])<<8 + int(b[i+1]) - 2
		i += 2
		if n < 0 || i+n > len(b) {
			return l, ok
		}
		seg := b[i : i+n]
		i += n
		switch marker {
		case jpegSOF0, jpegSOF1, jpegSOF2:
			if ok {
				return l, ok // image/jpeg refuses a second frame header
			}
			if !l.frame(seg, marker == jpegSOF2) {
				return l, false
			}
			ok = true
		case jpegAPP0:
			if n >= 5 {
				l.jfif = string(seg[:5]) == "JFIF\x00"
			}
		case jpegAPP14:
			if n >= 12 && string(seg[:5]) == "Adobe" {
				l.adobe, l.adobeColor = true, seg[11]
			}
		}
		l.end = i
		if marker == jpegSOS {
			return l, ok
		}
	}
}

// frame reads a SOF payload; false when image/jpeg would refuse it.
func (l *jpegLayout) frame(p []byte, progressive bool) bool {
	if len(p) < 6 || p[0] != 8 {
		return false
	}
	n := int(p[5])
	if (n != 1 && n != 3 && n != 4) || len(p) != 6+3*n {
		return false
	}
	l.height = int(p[1])<<8 | int(p[2])
	l.width = int(p[3])<<8 | int(p[4])
	l.nComp, l.progressive = n, progressive
	for c := 0; c < n; c++ {
		l.ids[c] = p[6+3*c]
		hv := p[7+3*c]
		l.h[c], l.v[c] = int(hv>>4), int(hv&0x0F)
		if l.h[c] < 1 || l.h[c] > 4 || l.v[c] < 1 || l.v[c] > 4 || l.h[c] == 3 || l.v[c] == 3 {
			return false
		}
	}
	switch n {
	case 1:
		l.h[0], l.v[0] = 1, 1
	case 3:
		if l.v[0] == 4 || l.h[0]%l.h[1] != 0 || l.v[0]%l.v[1] != 0 || l.h[2] != l.h[1] || l.v[2] != l.v[1] {
			return false
		}
	case 4:
		hv0 := l.h[0]<<4 | l.v[0]
		if (hv0 != 0x11 && hv0 != 0x22) || l.h[1] != 1 || l.v[1] != 1 || l.h[2] != 1 || l.v[2] != 1 ||
			l.h[3] != l.h[0] || l.v[3] != l.v[0] {
			return false
		}
	}
	return true
}

// ratio is the chroma subsampling of a 3- or 4-component image.
func (l jpegLayout) ratio() image.YCbCrSubsampleRatio {
	switch (l.h[0]/l.h[1])<<4 | l.v[0]/l.v[1] {
	case 0x12:
		return image.YCbCrSubsampleRatio440
	case 0x21:
		return image.YCbCrSubsampleRatio422
	case 0x22:
		return image.YCbCrSubsampleRatio420
	case 0x41:
		return image.YCbCrSubsampleRatio411
	case 0x42:
		return image.YCbCrSubsampleRatio410
	}
	return image.YCbCrSubsampleRatio444
}

// rgb reports whether image/jpeg converts this 3-component image to
// RGBA: no JFIF marker, and an Adobe marker with transform 0 or the
// component ids R, G, B.
func (l jpegLayout) rgb() bool {
	if l.nComp != 3 || l.jfif {
		return false
	}
	return (l.adobe && l.adobeColor == 0) || (l.ids[0] == 'R' && l.ids[1] == 'G' && l.ids[2] == 'B')
}

// decodeBytes is what image/jpeg holds decoding this layout: the image
// its MCUs cover (a Gray or a YCbCr), a CMYK image's black plane and its
// conversion, an RGB image's conversion, and a progressive image's
// coefficients for every component.
func (l jpegLayout) decodeBytes() int64 {
	w, h := int64(l.width), int64(l.height)
	h0, v0 := int64(l.h[0]), int64(l.v[0])
	mxx := (w + 8*h0 - 1) / (8 * h0)
	myy := (h + 8*v0 - 1) / (8 * v0)
	n := int64(jpegDecodeOverhead)
	if l.nComp == 1 {
		n += 64 * mxx * myy
	} else {
		mw, mh := 8*h0*mxx, 8*v0*myy
		n += ycbcrBytes(mw, mh, l.ratio())
		if l.nComp == 4 {
			n += mw*mh + 4*w*h
		} else if l.rgb() {
			n += 4 * w * h
		}
	}
	if l.progressive {
		for c := 0; c < l.nComp; c++ {
			n += mxx * myy * int64(l.h[c]*l.v[c]) * jpegBlockBytes
		}
	}
	return n
}

// orientBytes is what turning the decoded image for EXIF orientation o
// holds: one image of the same pixel type (orient).
func (l jpegLayout) orientBytes(o int) int64 {
	if o <= 1 || o > 8 {
		return 0
	}
	w, h := int64(l.width), int64(l.height)
	switch {
	case l.nComp == 1:
		return w * h
	case l.nComp == 4 || l.rgb():
		return 4 * w * h
	}
	if o >= 5 {
		w, h = h, w
	}
	return ycbcrBytes(w, h, turnedRatio(l.ratio(), o))
}

// jpegWorstBytes is decodeBytes and orientBytes of the costliest layout
// width×height allows (progressive, four components at full resolution),
// for a header the layout reader could not follow.
func jpegWorstBytes(width, height int) int64 {
	l := jpegLayout{width: width, height: height, nComp: 4, progressive: true, h: [4]int{1, 1, 1, 1}, v: [4]int{1, 1, 1, 1}}
	return l.decodeBytes() + l.orientBytes(8)
}

// ycbcrBytes is the size of image.NewYCbCr over a w×h rectangle at
// origin.
func ycbcrBytes(w, h int64, r image.YCbCrSubsampleRatio) int64 {
	cw, ch := w, h
	switch r {
	case image.YCbCrSubsampleRatio422:
		cw = (w + 1) / 2
	case image.YCbCrSubsampleRatio420:
		cw, ch = (w+1)/2, (h+1)/2
	case image.YCbCrSubsampleRatio440:
		ch = (h + 1) / 2
	case image.YCbCrSubsampleRatio411:
		cw = (w + 3) / 4
	case image.YCbCrSubsampleRatio410:
		cw, ch = (w+3)/4, (h+1)/2
	}
	return w*h + 2*cw*ch
}

// errLateColorMarker refuses a JPEG whose colour handling an APP0 or
// APP14 segment after its first scan could change.
var errLateColorMarker = errors.New("jpeg: APP0 or APP14 marker after the first scan")

// jpegMarkerGuard passes a JPEG stream through and fails once an APP0 or
// APP14 marker (the bytes FF E0 or FF EE) appears after its first skip
// bytes. image/jpeg reads those markers anywhere in the file, and one
// after the first scan can turn a 3-component image that was costed as
// YCbCr into RGB, which takes 4 more bytes a pixel. Entropy-coded data
// never holds those byte pairs (an FF there is followed by 00 or an RST
// marker), and encoders write these segments before the frame header.
type jpegMarkerGuard struct {
	r    io.Reader
	skip int64 // bytes still to pass unchecked
	ff   bool  // the last byte checked was FF
}

func (g *jpegMarkerGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	for _, c := range p[:n] {
		if g.skip > 0 {
			g.skip--
			continue
		}
		if g.ff && (c == jpegAPP0 || c == jpegAPP14) {
			return 0, errLateColorMarker
		}
		g.ff = c == 0xFF
	}
	return n, err
}
