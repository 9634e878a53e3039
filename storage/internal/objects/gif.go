package objects

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// A GIF file (www.w3.org/Graphics/GIF/spec-gif89a.txt) is a signature,
// "GIF87a" or "GIF89a", a logical screen descriptor (little-endian uint16
// width and height, flags, background colour index, aspect ratio) with a
// global colour table of 3·2^(1+flags&7) bytes when flags&0x80 is set, then
// blocks, each announced by one byte:
//
//   - 0x2C an image: a 9-byte descriptor (left, top, width, height, flags),
//     a local colour table under the same rule, the LZW minimum code size
//     byte and the data sub-blocks;
//   - 0x21 an extension: a label byte and sub-blocks;
//   - 0x3B the trailer, which ends the file.
//
// Sub-blocks are a length byte and that many bytes, ended by a zero length.
// Comments, plain text and application extensions (XMP, ICC profiles) can
// carry anything, so they are cut out of the stream; the image blocks are
// copied as sent, so an animation keeps its frames without being decoded.

// GIF block introducers and the extension labels stripGIF knows.
const (
	gifImage          = 0x2C
	gifExtension      = 0x21
	gifTrailer        = 0x3B
	gifPlainText      = 0x01
	gifGraphicControl = 0xF9
	gifComment        = 0xFE
	gifApplication    = 0xFF
)

// gifHeaderLen is the signature and the logical screen descriptor.
const gifHeaderLen = 13

// gifRefused is the error for a GIF stream that cannot be sanitised.
func gifRefused(format string, args ...any) error {
	return storageerr.ImageRefused(http.StatusUnprocessableEntity, "image could not be decoded: gif: "+fmt.Sprintf(format, args...))
}

// sanitizeGIF reads one GIF file from r (at most maxLen bytes), refuses it
// if malformed or of absurd declared dimensions, and returns it without
// comment, plain text and application extensions other than the
// animation loop's. Nothing in its header gives its length, so it is held
// in one buffer of the most it may be (maxLen, at most maxHeldImageBytes),
// those bytes taken from budget until Close.
func sanitizeGIF(ctx context.Context, budget *ImageBudget, r io.Reader, maxLen int64) (io.ReadCloser, error) {
	var hdr [gifHeaderLen]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, gifRefused("file shorter than the GIF header")
		}
		return nil, fmt.Errorf("read gif header: %w", err)
	}
	// The logical screen is checked before the rest is read.
	if err := gifScreen(hdr[:]); err != nil {
		return nil, err
	}
	// Hold one byte past the bound so a larger file is seen.
	bound := min(int64(maxHeldImageBytes), maxLen)
	file, g, err := holdImage(ctx, budget, r, hdr[:], bound+1)
	if err != nil {
		var e *storageerr.Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, fmt.Errorf("read gif: %w", err)
	}
	switch {
	case int64(len(file)) > maxLen:
		g.release()
		return nil, storageerr.EntityTooLarge()
	case len(file) > maxHeldImageBytes:
		g.release()
		return nil, storageerr.ImageRefused(http.StatusUnprocessableEntity,
			"GIF image of more than "+strconv.Itoa(maxHeldImageBytes)+" bytes exceeds the limit ("+strconv.Itoa(maxHeldImageBytes)+" bytes)")
	}
	out, err := stripGIF(file)
	if err != nil {
		g.release()
		return nil, err
	}
	return heldImage{Reader: bytes.NewReader(out), g: g}, nil
}

// gifScreen checks the signature and the logical screen size of the GIF
// header b (at least gifHeaderLen bytes, else refused).
func gifScreen(b []byte) error {
	if len(b) < gifHeaderLen || (string(b[:6]) != "GIF87a" && string(b[:6]) != "GIF89a") {
		return gifRefused("not a GIF87a or GIF89a file")
	}
	return CheckDimensions(int(binary.LittleEndian.Uint16(b[6:])), int(binary.LittleEndian.Uint16(b[8:])))
}

// gifColorTableLen is the size of the colour table announced by the flags
// byte of a logical screen or image descriptor.
func gifColorTableLen(flags byte) int {
	if flags&0x80 == 0 {
		return 0
	}
	return 3 << (1 + flags&7)
}

// stripGIF removes the comment, plain text and application extensions of
// the GIF file b, except the NETSCAPE2.0 and ANIMEXTS1.0 application
// extensions that hold an animation's loop count, and extensions of
// unknown label; a graphic control extension directly before a removed
// plain text one (which it governed) goes with it. Bytes after the
// trailer are dropped. It compacts b in place (the result shares its
// storage). Anything but one well-formed stream (a known signature, blocks
// inside the file, a known block introducer, at least one image, a
// trailer) and any logical screen or image of absurd dimensions
// (CheckDimensions) is refused, as a bad image, before it is stored.
func stripGIF(b []byte) ([]byte, error) {
	if err := gifScreen(b); err != nil {
		return nil, err
	}
	off := gifHeaderLen + gifColorTableLen(b[10])
	if off > len(b) {
		return nil, gifRefused("global colour table overruns the file")
	}
	n := off    // bytes of out so far; out never overtakes the read offset
	gce := -1   // start in out of a graphic control extension written last
	images := 0 // image blocks seen
	for {
		if off >= len(b) {
			return nil, gifRefused("no trailer")
		}
		switch b[off] {
		case gifTrailer:
			if images == 0 {
				return nil, gifRefused("no image")
			}
			b[n] = gifTrailer
			return b[:n+1], nil
		case gifImage:
			if len(b)-off < 10 {
				return nil, gifRefused("truncated image descriptor at byte %d", off)
			}
			w, h := int(binary.LittleEndian.Uint16(b[off+5:])), int(binary.LittleEndian.Uint16(b[off+7:]))
			if err := CheckDimensions(w, h); err != nil {
				return nil, err
			}
			// The colour table, then the LZW minimum code size byte.
			data := off + 10 + gifColorTableLen(b[off+9])
			if data >= len(b) {
				return nil, gifRefused("image at byte %d overruns the file", off)
			}
			end, err := gifSubBlocks(b, data+1)
			if err != nil {
				return nil, err
			}
			n += copy(b[n:], b[off:end])
			off = end
			images++
			gce = -1
		case gifExtension:
			if len(b)-off < 2 {
				return nil, gifRefused("truncated extension at byte %d", off)
			}
			end, err := gifSubBlocks(b, off+2)
			if err != nil {
				return nil, err
			}
			// gifSubBlocks read at least the terminator, so first exists.
			first := int(b[off+2])
			keep := false
			switch b[off+1] {
			case gifGraphicControl:
				keep = true
			case gifApplication:
				// Decoders take the first sub-block as the identifier and
				// authentication code; without one they disagree on where
				// the extension ends.
				if first == 0 {
					return nil, gifRefused("application extension without an identifier at byte %d", off)
				}
				id := string(b[off+3 : off+3+first])
				keep = id == "NETSCAPE2.0" || id == "ANIMEXTS1.0"
			case gifPlainText:
				// Decoders skip a fixed 12-byte header before the text
				// sub-blocks; any other size is read differently by each.
				if first != 12 {
					return nil, gifRefused("plain text extension header of %d bytes at byte %d, want 12", first, off)
				}
				if gce >= 0 {
					n, gce = gce, -1
				}
			}
			if keep {
				if b[off+1] == gifGraphicControl {
					gce = n
				} else {
					gce = -1
				}
				n += copy(b[n:], b[off:end])
			}
			off = end
		default:
			return nil, gifRefused("unknown block 0x%02x at byte %d", b[off], off)
		}
	}
}

// gifSubBlocks returns the offset just past the sub-blocks starting at off
// in b, their zero-length terminator included.
func gifSubBlocks(b []byte, off int) (int, error) {
	for {
		if off >= len(b) {
			return 0, gifRefused("sub-blocks without a terminator at byte %d", off)
		}
		size := int(b[off])
		off++
		if size == 0 {
			return off, nil
		}
		if size > len(b)-off {
			return 0, gifRefused("sub-block of %d bytes overruns the file at byte %d", size, off-1)
		}
		off += size
	}
}
