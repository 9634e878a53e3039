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

// A WebP file is a RIFF container: "RIFF", a little-endian uint32 size of
// everything after it, "WEBP", then chunks, each a FourCC, a little-endian
// uint32 payload size and the payload padded to an even length
// (developers.google.com/speed/webp/docs/riff_container). Go has no WebP
// encoder, so photos are not re-encoded like JPEG and PNG: their metadata
// chunks are cut out of the container instead.

// Flags of the first VP8X payload byte that announce metadata chunks; they
// are cleared with the chunks so readers do not look for them.
const (
	vp8xFlagEXIF = 0x08
	vp8xFlagXMP  = 0x04
)

// webpRefused is the error for a WebP container that cannot be sanitised.
func webpRefused(format string, args ...any) error {
	return storageerr.ImageRefused(http.StatusUnprocessableEntity, "image could not be decoded: webp: "+fmt.Sprintf(format, args...))
}

// sanitizeWebP reads one WebP file from r (at most maxLen bytes), refuses
// it if malformed or of absurd declared dimensions, and returns it without
// EXIF and XMP. The file is held in one buffer sized from its RIFF header,
// its bytes taken from budget until Close.
func sanitizeWebP(ctx context.Context, budget *ImageBudget, r io.Reader, maxLen int64) (io.ReadCloser, error) {
	var hdr [12]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, webpRefused("file shorter than the RIFF header")
		}
		return nil, fmt.Errorf("read webp header: %w", err)
	}
	size := int64(binary.LittleEndian.Uint32(hdr[4:]))
	if size+8 > maxHeldImageBytes {
		return nil, storageerr.ImageRefused(http.StatusUnprocessableEntity,
			"WebP image of "+strconv.FormatInt(size+8, 10)+" bytes exceeds the limit ("+strconv.Itoa(maxHeldImageBytes)+" bytes)")
	}
	// Hold one byte past the declared end so a size mismatch either way
	// is seen, and no more than r can deliver (a header may claim more
	// than is sent).
	n := int64(len(hdr)) + max(size-4, 0) + 1
	if maxLen+1 < n {
		n = maxLen + 1
	}
	file, g, err := holdImage(ctx, budget, r, hdr[:], n)
	if err != nil {
		var e *storageerr.Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, fmt.Errorf("read webp: %w", err)
	}
	if int64(len(file)) > maxLen {
		g.release()
		return nil, storageerr.EntityTooLarge()
	}
	out, w, h, err := stripWebP(file)
	if err == nil {
		err = CheckDimensions(w, h)
	}
	if err != nil {
		g.release()
		return nil, err
	}
	return heldImage{Reader: bytes.NewReader(out), g: g}, nil
}

// stripWebP removes the EXIF and XMP chunks of the WebP file b, clears the
// VP8X flags announcing them and rewrites the RIFF size. It compacts b in
// place (the result shares its storage) and also returns the canvas size:
// the VP8X canvas, else the VP8 or VP8L frame's. Anything but exactly one
// well-formed container (chunks inside the file, RIFF size equal to the
// bytes that follow it, a VP8X, VP8 or VP8L chunk first) is refused, as a
// bad image, before it is stored.
func stripWebP(b []byte) (out []byte, width, height int, err error) {
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WEBP" {
		return nil, 0, 0, webpRefused("not a RIFF WEBP container")
	}
	if size := uint64(binary.LittleEndian.Uint32(b[4:])); size != uint64(len(b)-8) {
		return nil, 0, 0, webpRefused("RIFF size %d does not match the %d bytes that follow it", size, len(b)-8)
	}
	if len(b) == 12 {
		return nil, 0, 0, webpRefused("no image chunk")
	}
	n := 12 // bytes of out so far; out never overtakes the read offset
	for off := 12; off < len(b); {
		if len(b)-off < 8 {
			return nil, 0, 0, webpRefused("truncated chunk header at byte %d", off)
		}
		fourCC := string(b[off : off+4])
		size := uint64(binary.LittleEndian.Uint32(b[off+4:]))
		// In uint64 so a size near 4 GiB cannot wrap an int.
		padded := size + size%2
		if padded > uint64(len(b)-off-8) {
			return nil, 0, 0, webpRefused("chunk %q of %d bytes overruns the file at byte %d", fourCC, size, off)
		}
		end := off + 8 + int(padded)
		payload := b[off+8 : off+8+int(size)]
		if off == 12 {
			if width, height, err = webpCanvas(fourCC, payload); err != nil {
				return nil, 0, 0, err
			}
		}
		if fourCC == "EXIF" || fourCC == "XMP " {
			off = end
			continue
		}
		start := n
		n += copy(b[n:], b[off:end])
		if fourCC == "VP8X" {
			b[start+8] &^= vp8xFlagEXIF | vp8xFlagXMP
		}
		off = end
	}
	out = b[:n]
	binary.LittleEndian.PutUint32(out[4:], uint32(n-8))
	return out, width, height, nil
}

// webpCanvas reads the dimensions from the first chunk of a WebP file.
func webpCanvas(fourCC string, p []byte) (w, h int, err error) {
	switch fourCC {
	case "VP8X":
		// flags(1) reserved(3) width-1(3) height-1(3), little-endian.
		if len(p) < 10 {
			return 0, 0, webpRefused("VP8X chunk of %d bytes, want 10", len(p))
		}
		w = 1 + (int(p[4]) | int(p[5])<<8 | int(p[6])<<16)
		h = 1 + (int(p[7]) | int(p[8])<<8 | int(p[9])<<16)
		return w, h, nil
	case "VP8 ":
		// frame tag(3), start code 9d 01 2a, then 14-bit width and height
		// each under a 2-bit scale.
		if len(p) < 10 || p[3] != 0x9d || p[4] != 0x01 || p[5] != 0x2a {
			return 0, 0, webpRefused("VP8 chunk without a key frame header")
		}
		return int(binary.LittleEndian.Uint16(p[6:]) & 0x3fff), int(binary.LittleEndian.Uint16(p[8:]) & 0x3fff), nil
	case "VP8L":
		// signature 0x2f, then width-1 and height-1 in 14 bits each.
		if len(p) < 5 || p[0] != 0x2f {
			return 0, 0, webpRefused("VP8L chunk without its signature")
		}
		bits := binary.LittleEndian.Uint32(p[1:])
		return 1 + int(bits&0x3fff), 1 + int(bits>>14&0x3fff), nil
	}
	return 0, 0, webpRefused("first chunk %q is not VP8X, VP8 or VP8L", fourCC)
}
