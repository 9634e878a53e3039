package objects

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image/gif"
	"image/png"
	"io"
	"strings"
	"testing"
)

// subBlocks splits data into GIF sub-blocks of at most 255 bytes and adds
// the terminator.
func subBlocks(data []byte) []byte {
	var b []byte
	for len(data) > 0 {
		k := min(len(data), 255)
		b = append(append(b, byte(k)), data[:k]...)
		data = data[k:]
	}
	return append(b, 0)
}

// gifExt is an extension block: introducer, label, then each of blocks as
// one sub-block (at most 255 bytes), then the terminator.
func gifExt(label byte, blocks ...string) []byte {
	b := []byte{gifExtension, label}
	for _, s := range blocks {
		b = append(append(b, byte(len(s))), s...)
	}
	return append(b, 0)
}

// gifFrame is an image block of w×h at the origin, without a local colour
// table, whose LZW data is one pixel of colour 0 (so only a 1×1 frame
// decodes).
func gifFrame(w, h int) []byte {
	b := []byte{gifImage, 0, 0, 0, 0, byte(w), byte(w >> 8), byte(h), byte(h >> 8), 0}
	return append(b, 0x02, 0x02, 0x44, 0x01, 0x00)
}

// gifFile is a GIF89a of a w×h screen with a two-colour global table, the
// given blocks and the trailer.
func gifFile(w, h int, blocks ...[]byte) []byte {
	b := []byte("GIF89a")
	b = binary.LittleEndian.AppendUint16(b, uint16(w))
	b = binary.LittleEndian.AppendUint16(b, uint16(h))
	b = append(b, 0x80, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff)
	for _, blk := range blocks {
		b = append(b, blk...)
	}
	return append(b, gifTrailer)
}

// xmpApp is an XMP application extension as Adobe writes it: the packet
// raw, not in sub-blocks, followed by the 258-byte "magic trailer" that
// brings a reader walking it as sub-blocks to the terminator.
func xmpApp(packet string) []byte {
	b := append([]byte{gifExtension, gifApplication, 11}, "XMP DataXMP"+packet...)
	b = append(b, 1)
	for i := 255; i >= 0; i-- {
		b = append(b, byte(i))
	}
	return append(b, 0)
}

var (
	gifComment1 = gifExt(gifComment, "Taken at -1.2921, 36.8219 (GPS)")
	gifXMP      = xmpApp(`<x:xmpmeta><exif:GPSLatitude>-1.2921</exif:GPSLatitude></x:xmpmeta>`)
	gifICC      = gifExt(gifApplication, "ICCRGBG1012", "icc-profile with GPS? no, but private")
	gifLoop     = gifExt(gifApplication, "NETSCAPE2.0", "\x01\x00\x00")
	gifAnimExts = gifExt(gifApplication, "ANIMEXTS1.0", "\x01\x05\x00")
	gifGCE      = gifExt(gifGraphicControl, "\x04\x0a\x00\x00")
	gifText     = gifExt(gifPlainText, "\x00\x00\x00\x00\x08\x00\x08\x00\x08\x08\x01\x00", "GPS -1.2921")
	gifUnknown  = gifExt(0x42, "unknown GPS payload")
)

func TestStripGIF(t *testing.T) {
	t.Parallel()
	frame := gifFrame(1, 1)
	gif87 := append([]byte("GIF87a\x01\x00\x01\x00\x00\x00\x00"), gifImage, 0, 0, 0, 0, 1, 0, 1, 0, 0x80, 0, 0, 0, 0xff, 0xff, 0xff, 0x02, 0x02, 0x44, 0x01, 0x00, gifTrailer)
	tests := []struct {
		name     string
		in, want []byte
		frames   int
	}{
		{"1×1, nothing to strip", gifFile(1, 1, frame), gifFile(1, 1, frame), 1},
		{"GIF87a with a local colour table", gif87, gif87, 1},
		{"comment", gifFile(1, 1, gifComment1, frame, gifComment1), gifFile(1, 1, frame), 1},
		{"XMP with its magic trailer", gifFile(1, 1, gifXMP, frame), gifFile(1, 1, frame), 1},
		{"ICC profile", gifFile(1, 1, gifICC, frame), gifFile(1, 1, frame), 1},
		{"animated: loop kept, metadata dropped",
			gifFile(1, 1, gifLoop, gifComment1, gifGCE, frame, gifXMP, gifGCE, frame, gifComment1),
			gifFile(1, 1, gifLoop, gifGCE, frame, gifGCE, frame), 2},
		{"ANIMEXTS1.0 kept", gifFile(1, 1, gifAnimExts, frame), gifFile(1, 1, gifAnimExts, frame), 1},
		{"trailing junk", append(gifFile(1, 1, frame), "junk GPS"...), gifFile(1, 1, frame), 1},
		{"plain text with its graphic control",
			gifFile(1, 1, gifGCE, gifComment1, gifText, gifGCE, frame), gifFile(1, 1, gifGCE, frame), 1},
		{"unknown extension", gifFile(1, 1, gifUnknown, frame), gifFile(1, 1, frame), 1},
		{"frame limits", gifFile(10000, 4000, gifFrame(10000, 4000)), gifFile(10000, 4000, gifFrame(10000, 4000)), -1},
	}
	for _, tt := range tests {
		out, err := stripGIF(bytes.Clone(tt.in))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !bytes.Equal(out, tt.want) {
			t.Errorf("%s:\n got % x\nwant % x", tt.name, out, tt.want)
		}
		if bytes.Contains(out, []byte("GPS")) {
			t.Errorf("%s: GPS data survived", tt.name)
		}
		if tt.frames < 0 {
			continue
		}
		g, err := gif.DecodeAll(bytes.NewReader(out))
		if err != nil || len(g.Image) != tt.frames {
			t.Errorf("%s: DecodeAll: %v, want %d frames", tt.name, err, tt.frames)
		}
	}
}

func TestStripGIFRefusesMalformed(t *testing.T) {
	t.Parallel()
	frame := gifFrame(1, 1)
	whole := gifFile(1, 1, frame)
	tests := []struct {
		name string
		in   []byte
		want string // in the message
	}{
		{"empty", nil, "not a GIF87a or GIF89a file"},
		{"header only, short", []byte("GIF89a\x01\x00\x01\x00"), "not a GIF87a or GIF89a file"},
		{"unknown version", append([]byte("GIF88a"), whole[6:]...), "not a GIF87a or GIF89a file"},
		{"a PNG", pngHeaderOnly(t), "not a GIF87a or GIF89a file"},
		{"zero screen", gifFile(0, 1, frame), "dimensions 0x1"},
		{"absurd screen", gifFile(20000, 1, frame), "dimensions 20000x1"},
		{"too many pixels", gifFile(10000, 10000, frame), "dimensions 10000x10000"},
		{"absurd frame", gifFile(1, 1, frame, gifFrame(1, 60000)), "dimensions 1x60000"},
		{"zero frame", gifFile(1, 1, gifFrame(0, 0)), "dimensions 0x0"},
		{"global colour table overruns", []byte("GIF89a\x01\x00\x01\x00\x87\x00\x00\x00\x00"), "global colour table overruns"},
		{"no trailer", whole[:len(whole)-1], "no trailer"},
		{"no block at all", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00"), "no trailer"},
		{"no image", gifFile(1, 1, gifLoop), "no image"},
		{"unknown block", gifFile(1, 1, frame, []byte{0x00}), "unknown block 0x00"},
		{"truncated image descriptor", append(gifFile(1, 1)[:19], gifImage, 0, 0, 0), "truncated image descriptor"},
		{"local colour table overruns", append(gifFile(1, 1)[:19], gifImage, 0, 0, 0, 0, 1, 0, 1, 0, 0x87, 0, 0), "overruns the file"},
		{"no LZW code size", append(gifFile(1, 1)[:19], gifImage, 0, 0, 0, 0, 1, 0, 1, 0, 0), "overruns the file"},
		{"image data without a terminator", append(gifFile(1, 1)[:19], frame[:len(frame)-1]...), "without a terminator"},
		{"image sub-block overruns", append(gifFile(1, 1)[:19], gifImage, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 9, 1, 2), "overruns the file"},
		{"truncated extension", append(gifFile(1, 1, frame)[:len(whole)-1], gifExtension), "truncated extension"},
		{"extension without a terminator", append(gifFile(1, 1, frame)[:len(whole)-1], gifExtension, gifComment, 3, 'a', 'b', 'c'), "without a terminator"},
		{"extension sub-block overruns", append(gifFile(1, 1, frame)[:len(whole)-1], gifExtension, gifComment, 200, 'a'), "overruns the file"},
		{"application extension without identifier", gifFile(1, 1, []byte{gifExtension, gifApplication, 0}, frame), "without an identifier"},
		{"plain text header of 4 bytes", gifFile(1, 1, gifExt(gifPlainText, "abcd"), frame), "plain text extension header of 4 bytes"},
	}
	for _, tt := range tests {
		_, err := stripGIF(bytes.Clone(tt.in))
		if !isRefusal(err, tt.want) {
			t.Errorf("%s: %v, want a 422 containing %q", tt.name, err, tt.want)
		}
	}
}

// pngHeaderOnly is the first bytes of a PNG, enough to look like an image
// header.
func pngHeaderOnly(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, testImage()); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestSanitizeGIF(t *testing.T) {
	t.Parallel()
	frame := gifFrame(1, 1)
	photo := gifFile(1, 1, gifLoop, gifComment1, gifXMP, gifGCE, frame, gifICC, gifGCE, frame)
	tests := []sanitizeCase{
		{"animation with comment, XMP and ICC", "", bytes.NewReader(photo), gifFile(1, 1, gifLoop, gifGCE, frame, gifGCE, frame), ""},
		{"content type parameters", "Image/GIF; q=1", bytes.NewReader(gifFile(1, 1, frame)), gifFile(1, 1, frame), ""},
		{"trailing data", "", io.MultiReader(bytes.NewReader(gifFile(1, 1, frame)), strings.NewReader("junk")), gifFile(1, 1, frame), ""},
		// Refused from the header, before reading on: the reader fails if
		// asked for more.
		{"absurd screen", "", io.MultiReader(bytes.NewReader(gifFile(20000, 4000)[:gifHeaderLen]), failingReader{}), nil, "dimensions 20000x4000"},
		{"absurd frame", "", bytes.NewReader(gifFile(100, 100, gifFrame(20000, 20000))), nil, "dimensions 20000x20000"},
		{"shorter than the header", "", strings.NewReader("GIF89a\x01"), nil, "shorter than the GIF header"},
		{"not a GIF", "", bytes.NewReader(pngHeaderOnly(t)), nil, "not a GIF87a or GIF89a file"},
		{"truncated", "", bytes.NewReader(photo[:len(photo)-3]), nil, "overruns the file"},
		{"no trailer", "", bytes.NewReader(photo[:len(photo)-1]), nil, "no trailer"},
	}
	checkSanitize(t, "image/gif", tests)
}

// walkGIF checks that b is one GIF stream ending exactly at its trailer,
// and lists its extensions as "label" or, for application extensions,
// "label:identifier", and counts its frames. It is written apart from
// stripGIF so the fuzz test does not trust the code it tests.
func walkGIF(b []byte) (exts []string, frames int, err error) {
	if len(b) < 13 || (string(b[:6]) != "GIF87a" && string(b[:6]) != "GIF89a") {
		return nil, 0, errors.New("bad header")
	}
	table := func(flags byte) int {
		if flags&0x80 != 0 {
			return 3 * (1 << (flags&7 + 1))
		}
		return 0
	}
	skip := func(off int) (int, error) {
		for off < len(b) && b[off] != 0 {
			off += 1 + int(b[off])
		}
		if off >= len(b) {
			return 0, errors.New("sub-blocks overrun")
		}
		return off + 1, nil
	}
	off := 13 + table(b[10])
	for off < len(b) {
		switch b[off] {
		case 0x3B:
			if off != len(b)-1 {
				return nil, 0, fmt.Errorf("%d bytes after the trailer", len(b)-1-off)
			}
			return exts, frames, nil
		case 0x2C:
			if off+10 >= len(b) {
				return nil, 0, errors.New("image overruns")
			}
			if off, err = skip(off + 10 + table(b[off+9]) + 1); err != nil {
				return nil, 0, err
			}
			frames++
		case 0x21:
			if off+2 >= len(b) {
				return nil, 0, errors.New("extension overruns")
			}
			ext := fmt.Sprintf("%#x", b[off+1])
			if b[off+1] == 0xFF {
				ext += ":" + string(b[off+3:min(len(b), off+3+int(b[off+2]))])
			}
			exts = append(exts, ext)
			if off, err = skip(off + 2); err != nil {
				return nil, 0, err
			}
		default:
			return nil, 0, fmt.Errorf("block %#x", b[off])
		}
	}
	return nil, 0, errors.New("no trailer")
}

// FuzzStripGIF: on any input stripGIF never panics, fails only with a 422
// image refusal, and what it accepts comes out one GIF stream ending at its
// trailer, with only graphic control and animation loop extensions, the
// same frames, no longer than the input, unchanged by a second pass, and
// decodable by image/gif when the input was.
func FuzzStripGIF(f *testing.F) {
	frame := gifFrame(1, 1)
	for _, seed := range [][]byte{
		gifFile(1, 1, frame),
		gifFile(1, 1, gifComment1, frame),
		gifFile(1, 1, gifXMP, frame),
		gifFile(1, 1, gifICC, gifAnimExts, frame),
		gifFile(1, 1, gifLoop, gifGCE, frame, gifComment1, gifGCE, frame),
		gifFile(1, 1, gifGCE, gifText, gifUnknown, frame),
		append(gifFile(1, 1, frame), "junk"...),
		gifFile(1, 1, []byte{gifExtension, gifApplication, 0}, frame),
		gifFile(1, 1, gifExt(gifPlainText, "abcd"), frame),
		gifFile(20000, 1, frame),
		[]byte("GIF89a\x01\x00\x01\x00\x87\x00\x00"),
		[]byte("GIF87a\x01\x00\x01\x00\x00\x00\x00;"),
		nil,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := stripGIF(bytes.Clone(b))
		if err != nil {
			if !isRefusal(err, "") {
				t.Fatalf("error %v is not a 422 image refusal", err)
			}
			return
		}
		if len(out) > len(b) {
			t.Fatalf("output of %d bytes from %d", len(out), len(b))
		}
		exts, frames, err := walkGIF(out)
		if err != nil {
			t.Fatalf("output is not one GIF stream: %v: % x", err, out)
		}
		for _, ext := range exts {
			if ext != "0xf9" && ext != "0xff:NETSCAPE2.0" && ext != "0xff:ANIMEXTS1.0" {
				t.Fatalf("extension %q survived", ext)
			}
		}
		again, err := stripGIF(bytes.Clone(out))
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("second pass changed the output: %v", err)
		}
		// Decoding allocates every frame: only small screens are tried
		// (frames beyond the screen do not decode anyway).
		cfg, err := gif.DecodeConfig(bytes.NewReader(b))
		if err != nil || cfg.Width*cfg.Height > 1<<16 {
			return
		}
		g, err := gif.DecodeAll(bytes.NewReader(b))
		if err != nil {
			return
		}
		g2, err := gif.DecodeAll(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("input decodes, output does not: %v", err)
		}
		if len(g2.Image) != len(g.Image) || len(g2.Image) != frames || g2.LoopCount != g.LoopCount || g2.Config.Width != g.Config.Width || g2.Config.Height != g.Config.Height {
			t.Fatalf("output decodes as %d frames (loop %d, %dx%d), input as %d (loop %d, %dx%d)",
				len(g2.Image), g2.LoopCount, g2.Config.Width, g2.Config.Height, len(g.Image), g.LoopCount, g.Config.Width, g.Config.Height)
		}
	})
}
