package objects

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// Real 1×1 WebP files (the ones feature-detection scripts carry): lossless,
// lossy, lossy with alpha (VP8X + ALPH + VP8) and animated (VP8X + ANIM +
// ANMF).
var (
	webpLossless = mustB64("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")
	webpLossy    = mustB64("UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA")
	webpAlpha    = mustB64("UklGRkoAAABXRUJQVlA4WAoAAAAQAAAAAAAAAAAAQUxQSAwAAAARBxAR/Q9ERP8DAABWUDggGAAAABQBAJ0BKgEAAQAAAP4AAA3AAP7mtQAAAA==")
	webpAnimated = mustB64("UklGRlIAAABXRUJQVlA4WAoAAAASAAAAAAAAAAAAQU5JTQYAAAD/////AABBTk1GJgAAAAAAAAAAAAAAAAAAAGQAAABWUDhMDQAAAC8AAAAQBxAREYiI/gcA")
)

func mustB64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// riffChunk is one chunk: FourCC, size, payload, pad byte when odd.
func riffChunk(fourCC string, payload []byte) []byte {
	b := append([]byte(fourCC), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(payload)))
	b = append(b, payload...)
	if len(payload)%2 == 1 {
		b = append(b, 0)
	}
	return b
}

// webpFile wraps chunks in a RIFF WEBP header with the right size.
func webpFile(chunks ...[]byte) []byte {
	b := []byte("RIFF\x00\x00\x00\x00WEBP")
	for _, c := range chunks {
		b = append(b, c...)
	}
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)-8))
	return b
}

// chunksOf splits a file made by webpFile (or a real one) back into its
// chunks, without checks: test inputs are well-formed.
func chunksOf(b []byte) [][]byte {
	var out [][]byte
	for off := 12; off+8 <= len(b); {
		n := int(binary.LittleEndian.Uint32(b[off+4:]))
		end := min(off+8+n+n%2, len(b))
		out = append(out, b[off:end])
		off = end
	}
	return out
}

// vp8x is a VP8X chunk with the given flags and canvas.
func vp8x(flags byte, w, h int) []byte {
	p := make([]byte, 10)
	p[0] = flags
	p[4], p[5], p[6] = byte(w-1), byte((w-1)>>8), byte((w-1)>>16)
	p[7], p[8], p[9] = byte(h-1), byte((h-1)>>8), byte((h-1)>>16)
	return riffChunk("VP8X", p)
}

var (
	exifGPS = riffChunk("EXIF", []byte("MM\x00\x2a\x00\x00\x00\x08GPSLatitude=-1.2921"))
	xmpGPS  = riffChunk("XMP ", []byte(`<x:xmpmeta><exif:GPSLongitude>36.8219</exif:GPSLongitude></x:xmpmeta>`))
	iccp    = riffChunk("ICCP", []byte("icc-profile"))
	unknown = riffChunk("ABCD", []byte("kept"))
)

func TestStripWebP(t *testing.T) {
	t.Parallel()
	alpha := chunksOf(webpAlpha) // VP8X, ALPH, VP8
	anim := chunksOf(webpAnimated)
	tests := []struct {
		name string
		in   []byte
		want []byte
		w, h int
	}{
		{"lossless, nothing to strip", webpLossless, webpLossless, 1, 1},
		{"lossy, nothing to strip", webpLossy, webpLossy, 1, 1},
		{"alpha, nothing to strip", webpAlpha, webpAlpha, 1, 1},
		{"animated, nothing to strip", webpAnimated, webpAnimated, 1, 1},
		{"EXIF and XMP after the image (the spec's order)",
			webpFile(vp8x(0x10|vp8xFlagEXIF|vp8xFlagXMP, 1, 1), iccp, alpha[1], alpha[2], exifGPS, xmpGPS, unknown),
			webpFile(vp8x(0x10, 1, 1), iccp, alpha[1], alpha[2], unknown), 1, 1},
		{"EXIF before the image, odd size (padded)",
			webpFile(vp8x(0x10|vp8xFlagEXIF, 640, 480), riffChunk("EXIF", []byte("odd")), alpha[1], alpha[2]),
			webpFile(vp8x(0x10, 640, 480), alpha[1], alpha[2]), 640, 480},
		{"several metadata chunks, animated",
			webpFile(vp8x(0x02|vp8xFlagEXIF|vp8xFlagXMP, 1, 1), xmpGPS, anim[1], exifGPS, anim[2], exifGPS, xmpGPS),
			webpFile(vp8x(0x02, 1, 1), anim[1], anim[2]), 1, 1},
		{"flags set without the chunks are cleared",
			webpFile(vp8x(0xff, 3, 2), alpha[2]), webpFile(vp8x(0xff&^(vp8xFlagEXIF|vp8xFlagXMP), 3, 2), alpha[2]), 3, 2},
		{"simple format with a stray EXIF chunk",
			webpFile(chunksOf(webpLossy)[0], exifGPS), webpLossy, 1, 1},
		{"24-bit canvas", webpFile(vp8x(0, 1<<24, 300), alpha[2]), webpFile(vp8x(0, 1<<24, 300), alpha[2]), 1 << 24, 300},
	}
	for _, tt := range tests {
		in := bytes.Clone(tt.in)
		out, w, h, err := stripWebP(in)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !bytes.Equal(out, tt.want) {
			t.Errorf("%s:\n got % x\nwant % x", tt.name, out, tt.want)
		}
		if w != tt.w || h != tt.h {
			t.Errorf("%s: %dx%d, want %dx%d", tt.name, w, h, tt.w, tt.h)
		}
		if bytes.Contains(out, []byte("GPS")) {
			t.Errorf("%s: GPS data survived", tt.name)
		}
	}
}

func TestStripWebPRefusesMalformed(t *testing.T) {
	t.Parallel()
	withSize := func(b []byte, size uint32) []byte {
		b = bytes.Clone(b)
		binary.LittleEndian.PutUint32(b[4:], size)
		return b
	}
	vp8 := chunksOf(webpLossy)[0]
	tests := []struct {
		name string
		in   []byte
		want string // in the message
	}{
		{"empty", nil, "not a RIFF WEBP container"},
		{"header only, short", []byte("RIFF\x04\x00\x00\x00WEB"), "not a RIFF WEBP container"},
		{"not RIFF", append([]byte("RIFX"), webpLossless[4:]...), "not a RIFF WEBP container"},
		{"RIFF but WAVE", append(append([]byte{}, webpLossless[:8]...), append([]byte("WAVE"), webpLossless[12:]...)...), "not a RIFF WEBP container"},
		{"no chunk", webpFile(), "no image chunk"},
		{"RIFF size too large", withSize(webpLossless, uint32(len(webpLossless))), "does not match"},
		{"RIFF size too small", withSize(webpLossless, uint32(len(webpLossless)-10)), "does not match"},
		{"RIFF size 4 GiB", withSize(webpLossless, 0xffffffff), "does not match"},
		{"trailing bytes", append(bytes.Clone(webpLossless), 0, 0), "does not match"},
		{"truncated chunk header", webpFile(vp8, []byte("EXIF\x01\x00")), "truncated chunk header"},
		{"chunk overruns the file", webpFile(vp8, []byte("EXIF\x10\x00\x00\x00abcd")), "overruns"},
		{"chunk size overflow", webpFile(vp8, []byte("EXIF\xff\xff\xff\xffabcd")), "overruns"},
		{"odd chunk without its pad byte", webpFile(vp8, []byte("EXIF\x03\x00\x00\x00abc")), "overruns"},
		{"first chunk not an image", webpFile(exifGPS, vp8), `first chunk "EXIF"`},
		{"VP8X too short", webpFile(riffChunk("VP8X", []byte{0x08, 0, 0, 0})), "VP8X chunk of 4 bytes"},
		{"VP8 without start code", webpFile(riffChunk("VP8 ", make([]byte, 10))), "key frame header"},
		{"VP8 too short", webpFile(riffChunk("VP8 ", []byte{0, 0, 0, 0x9d, 0x01, 0x2a})), "key frame header"},
		{"VP8L without signature", webpFile(riffChunk("VP8L", []byte{0x2e, 0, 0, 0, 0})), "signature"},
	}
	for _, tt := range tests {
		_, _, _, err := stripWebP(bytes.Clone(tt.in))
		if !isRefusal(err, tt.want) {
			t.Errorf("%s: %v, want a 422 containing %q", tt.name, err, tt.want)
		}
	}
}

func TestSanitizeWebP(t *testing.T) {
	t.Parallel()
	alpha := chunksOf(webpAlpha)
	photo := webpFile(vp8x(0x10|vp8xFlagEXIF|vp8xFlagXMP, 4000, 3000), alpha[1], alpha[2], exifGPS, xmpGPS)
	tooLarge := []byte("RIFF\x00\x00\x00\x7fWEBP")
	tests := []sanitizeCase{
		{"photo with EXIF and XMP", "", bytes.NewReader(photo), webpFile(vp8x(0x10, 4000, 3000), alpha[1], alpha[2]), ""},
		{"content type parameters", "Image/WebP; q=1", bytes.NewReader(webpLossless), webpLossless, ""},
		{"absurd canvas", "", bytes.NewReader(webpFile(vp8x(0, 100000, 100000), alpha[2])), nil, "dimensions 100000x100000"},
		{"too many pixels", "", bytes.NewReader(webpFile(vp8x(0, 10000, 10000), alpha[2])), nil, "dimensions 10000x10000"},
		{"zero-sized VP8 frame", "", bytes.NewReader(webpFile(riffChunk("VP8 ", []byte{0, 0, 0, 0x9d, 0x01, 0x2a, 0, 0, 1, 0}))), nil, "dimensions 0x1"},
		// Refused from the header, before reading on: the reader fails if
		// asked for more.
		{"declared size over the memory bound", "", io.MultiReader(bytes.NewReader(tooLarge), failingReader{}), nil, "exceeds the limit"},
		{"shorter than the header", "", strings.NewReader("RIFF\x00"), nil, "shorter than the RIFF header"},
		{"trailing data", "", io.MultiReader(bytes.NewReader(webpLossless), strings.NewReader("junk")), nil, "does not match"},
		{"truncated", "", bytes.NewReader(webpLossless[:len(webpLossless)-3]), nil, "does not match"},
	}
	checkSanitize(t, "image/webp", tests)
}

// TestSanitizeKeepsReadErrors: a failure of the upload stream (here the
// size limit) while a WebP or GIF is held is reported as itself, not as a
// bad image.
func TestSanitizeKeepsReadErrors(t *testing.T) {
	t.Parallel()
	files := []struct {
		ct string
		in []byte
	}{
		{"image/webp", webpLossless},
		{"image/gif", gifFile(1, 1, gifComment1, gifFrame(1, 1))},
	}
	for _, f := range files {
		for _, cut := range []int{5, 20} {
			lr := &limitReader{r: bytes.NewReader(f.in), left: int64(cut)}
			_, err := sanitize(lr, f.ct)
			var e *storageerr.Error
			if !errors.As(uploadErr(err), &e) || e.Status != 413 {
				t.Errorf("%s cut at %d: %v, want EntityTooLarge", f.ct, cut, err)
			}
		}
	}
}

// sanitizeCase is one upload through Sanitize: in, sent with content type
// ct ("" for the test's default), comes out as want, or (want nil) is
// refused with a 422 whose message contains msg.
type sanitizeCase struct {
	name, ct string
	in       io.Reader
	want     []byte
	msg      string
}

// checkSanitize runs each case through Sanitize with defaultType for an
// empty ct.
func checkSanitize(t *testing.T, defaultType string, tests []sanitizeCase) {
	t.Helper()
	for _, tt := range tests {
		ct := tt.ct
		if ct == "" {
			ct = defaultType
		}
		r, err := sanitize(tt.in, ct)
		if tt.want == nil {
			if !isRefusal(err, tt.msg) {
				t.Errorf("%s: %v, want a 422 containing %q", tt.name, err, tt.msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		out, err := io.ReadAll(r)
		_ = r.Close()
		if err != nil || !bytes.Equal(out, tt.want) {
			t.Errorf("%s: % x, %v\nwant % x", tt.name, out, err, tt.want)
		}
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("read past the header") }

// FuzzStripWebP: on any input stripWebP never panics, and what it accepts
// comes out a well-formed RIFF WEBP whose size field matches, with no EXIF
// or XMP chunk, no VP8X flag announcing one, no longer than the input, and
// unchanged by a second pass.
func FuzzStripWebP(f *testing.F) {
	alpha := chunksOf(webpAlpha)
	for _, seed := range [][]byte{
		webpLossless, webpLossy, webpAlpha, webpAnimated,
		webpFile(vp8x(0xff, 640, 480), iccp, alpha[1], alpha[2], exifGPS, xmpGPS, unknown),
		webpFile(vp8x(0x08, 1, 1), riffChunk("EXIF", []byte("odd")), alpha[2]),
		webpFile(chunksOf(webpLossy)[0], []byte("EXIF\xff\xff\xff\xffabcd")),
		webpFile(chunksOf(webpLossy)[0], []byte("EXIF\x03\x00\x00\x00abc")),
		webpFile(exifGPS),
		[]byte("RIFF\xff\xff\xff\xffWEBPVP8X"),
		nil,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, w, h, err := stripWebP(bytes.Clone(b))
		if err != nil {
			if !isRefusal(err, "") {
				t.Fatalf("error %v is not a 422 image refusal", err)
			}
			return
		}
		if len(out) > len(b) {
			t.Fatalf("output of %d bytes from %d", len(out), len(b))
		}
		if len(out) < 12 || string(out[:4]) != "RIFF" || string(out[8:12]) != "WEBP" {
			t.Fatalf("output is not RIFF WEBP: % x", out)
		}
		if size := binary.LittleEndian.Uint32(out[4:]); int(size) != len(out)-8 {
			t.Fatalf("RIFF size %d for %d bytes", size, len(out)-8)
		}
		off := 12
		for off < len(out) {
			if len(out)-off < 8 {
				t.Fatalf("truncated chunk header at %d", off)
			}
			fourCC := string(out[off : off+4])
			n := int(binary.LittleEndian.Uint32(out[off+4:]))
			if n < 0 || n+n%2 > len(out)-off-8 {
				t.Fatalf("chunk %q overruns the output", fourCC)
			}
			if fourCC == "EXIF" || fourCC == "XMP " {
				t.Fatalf("chunk %q survived", fourCC)
			}
			if fourCC == "VP8X" && n > 0 && out[off+8]&(vp8xFlagEXIF|vp8xFlagXMP) != 0 {
				t.Fatalf("VP8X flags %#x still announce metadata", out[off+8])
			}
			off += 8 + n + n%2
		}
		again, w2, h2, err := stripWebP(bytes.Clone(out))
		if err != nil || !bytes.Equal(again, out) || w2 != w || h2 != h {
			t.Fatalf("second pass changed the output: %v", err)
		}
	})
}
