package objects

import (
	"bytes"
	"encoding/binary"
	"image"
)

// exifOrientation returns the EXIF orientation (1–8) recorded in a JPEG's
// APP1 segment among head (the bytes before the frame header), or 1.
func exifOrientation(head []byte) int {
	for i := 2; i+4 <= len(head); {
		if head[i] != 0xFF {
			return 1
		}
		marker := head[i+1]
		if marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7) {
			i += 2
			continue
		}
		if marker == 0xDA || marker == 0xD9 {
			return 1
		}
		n := int(binary.BigEndian.Uint16(head[i+2:]))
		end := i + 2 + n
		if n < 2 || end > len(head) {
			return 1
		}
		seg := head[i+4 : end]
		if marker == 0xE1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
			return tiffOrientation(seg[6:])
		}
		i = end
	}
	return 1
}

func tiffOrientation(t []byte) int {
	if len(t) < 8 {
		return 1
	}
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 1
	}
	off := int(bo.Uint32(t[4:]))
	if off < 8 || off+2 > len(t) {
		return 1
	}
	count := int(bo.Uint16(t[off:]))
	for j := 0; j < count; j++ {
		e := off + 2 + 12*j
		if e+12 > len(t) {
			return 1
		}
		if bo.Uint16(t[e:]) == 0x0112 {
			if v := int(bo.Uint16(t[e+8:])); v >= 1 && v <= 8 {
				return v
			}
			return 1
		}
	}
	return 1
}

// orient applies an EXIF orientation to img, so the re-encoded photo (which
// no longer carries the tag) displays the way the camera meant. The result
// has img's pixel type, so turning holds one more image of the same size
// (jpegLayout.orientBytes): a YCbCr keeps its chroma planes, subsampled as
// turnedRatio says; the types image/jpeg decodes to and the flat 8- and
// 16-bit types copy their pixels as bytes; anything else becomes NRGBA.
func orient(img image.Image, o int) image.Image {
	if o <= 1 || o > 8 {
		return img
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	// from is the pixel of img, relative to b.Min, shown at (x, y) of the
	// result.
	from := func(x, y int) (int, int) {
		switch o {
		case 2:
			return w - 1 - x, y
		case 3:
			return w - 1 - x, h - 1 - y
		case 4:
			return x, h - 1 - y
		case 5:
			return y, x
		case 6:
			return y, h - 1 - x
		case 7:
			return w - 1 - y, h - 1 - x
		}
		return w - 1 - y, x // 8
	}
	r := image.Rect(0, 0, dw, dh)
	switch m := img.(type) {
	case *image.YCbCr:
		dst := image.NewYCbCr(r, turnedRatio(m.SubsampleRatio, o))
		turnPixels(dst.Y, dst.YStride, m.Y, m.YStride, 1, dw, dh, from)
		for y := 0; y < dh; y++ {
			for x := 0; x < dw; x++ {
				sx, sy := from(x, y)
				si, di := m.COffset(b.Min.X+sx, b.Min.Y+sy), dst.COffset(x, y)
				dst.Cb[di], dst.Cr[di] = m.Cb[si], m.Cr[si]
			}
		}
		return dst
	case *image.Gray:
		dst := image.NewGray(r)
		turnPixels(dst.Pix, dst.Stride, m.Pix, m.Stride, 1, dw, dh, from)
		return dst
	case *image.Gray16:
		dst := image.NewGray16(r)
		turnPixels(dst.Pix, dst.Stride, m.Pix, m.Stride, 2, dw, dh, from)
		return dst
	case *image.RGBA:
		dst := image.NewRGBA(r)
		turnPixels(dst.Pix, dst.Stride, m.Pix, m.Stride, 4, dw, dh, from)
		return dst
	case *image.NRGBA:
		dst := image.NewNRGBA(r)
		turnPixels(dst.Pix, dst.Stride, m.Pix, m.Stride, 4, dw, dh, from)
		return dst
	case *image.CMYK:
		dst := image.NewCMYK(r)
		turnPixels(dst.Pix, dst.Stride, m.Pix, m.Stride, 4, dw, dh, from)
		return dst
	}
	dst := image.NewNRGBA(r)
	for y := 0; y < dh; y++ {
		for x := 0; x < dw; x++ {
			sx, sy := from(x, y)
			dst.Set(x, y, img.At(b.Min.X+sx, b.Min.Y+sy))
		}
	}
	return dst
}

// turnPixels fills the dw×dh pixels of dst, bpp bytes each, from the
// pixels of src that from names. Both slices start at their image's
// top-left pixel, as an image's Pix (or Y) does.
func turnPixels(dst []byte, dstStride int, src []byte, srcStride, bpp, dw, dh int, from func(x, y int) (int, int)) {
	for y := 0; y < dh; y++ {
		row := dst[y*dstStride:]
		for x := 0; x < dw; x++ {
			sx, sy := from(x, y)
			si := sy*srcStride + sx*bpp
			copy(row[x*bpp:x*bpp+bpp], src[si:si+bpp])
		}
	}
}

// turnedRatio is the chroma subsampling of a YCbCr image of ratio r turned
// for EXIF orientation o: the same, its axes swapped for 5 to 8. 4:1:1 and
// 4:1:0 have no swapped counterpart and take the nearest finer one (4:4:0,
// 4:2:0), so no chroma detail is lost.
func turnedRatio(r image.YCbCrSubsampleRatio, o int) image.YCbCrSubsampleRatio {
	if o < 5 {
		return r
	}
	switch r {
	case image.YCbCrSubsampleRatio422:
		return image.YCbCrSubsampleRatio440
	case image.YCbCrSubsampleRatio440:
		return image.YCbCrSubsampleRatio422
	case image.YCbCrSubsampleRatio411:
		return image.YCbCrSubsampleRatio440
	case image.YCbCrSubsampleRatio410:
		return image.YCbCrSubsampleRatio420
	}
	return r
}
