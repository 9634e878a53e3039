package render

import "image"

// The cost of a render beyond its source bytes is an upper bound on what
// it holds at its peak: the decoded image, the resized one, and the
// encoder's buffers and output. JPEG and PNG decoding are costed by the
// upload path's model; the rest is worked out here from what the decoders
// and encoders in use allocate.
const (
	// gifDecodeOverhead covers image/gif's LZW reader and palette.
	gifDecodeOverhead = 64 << 10
	// webpDecodeBytesPerPixel bounds x/image/webp: a lossless image is
	// NRGBA (4 B/px) decoded from a 4 B/px ARGB buffer; a lossy one is
	// 4:2:0 YCbCr (1.5 B/px) plus alpha.
	webpDecodeBytesPerPixel = 8
	webpDecodeOverhead      = 1 << 20
	// webpEncodeBytesPerPixel bounds the WebP encoder: the NRGBA copy
	// handed to it, the same copied into its WebAssembly memory, libwebp's
	// YUV planes and analysis buffers, and the output. webpEncodeOverhead
	// is one module instance's own memory.
	webpEncodeBytesPerPixel = 16
	webpEncodeOverhead      = 16 << 20
	// encodeOverhead covers the JPEG, PNG and GIF encoders' state
	// (deflate's ~800 KiB the largest).
	encodeOverhead = 1 << 20
)

// workCost is what rendering the source (already held) costs: decoding,
// resizing to p, and encoding as out.
func (r *Renderer) workCost(format string, data []byte, cfg image.Config, p plan, out string) int64 {
	w, h := int64(cfg.Width), int64(cfg.Height)
	var cost int64
	switch format {
	case fmtGIF:
		cost = w*h + gifDecodeOverhead
	case fmtWebP:
		cost = webpDecodeBytesPerPixel*w*h + webpDecodeOverhead
	default:
		c, ok := int64(0), false
		if r.cost != nil {
			c, ok = r.cost(format, data, cfg.Width, cfg.Height)
		}
		if !ok {
			// Worst case of either decoder: 16-bit RGBA PNG, 8 B/px, plus
			// a progressive JPEG's coefficients.
			c = 16 * w * h
		}
		cost = c
	}
	ow, oh := int64(p.Width), int64(p.Height)
	if !p.Same {
		cost += 4 * ow * oh // the resized RGBA
		if iw, ih := prescaleSize(p); iw > 0 {
			cost += 4 * int64(iw) * int64(ih) // the intermediate
		}
	}
	switch out {
	case fmtWebP:
		cost += webpEncodeBytesPerPixel*ow*oh + webpEncodeOverhead
	case fmtGIF:
		cost += 2*ow*oh + encodeOverhead // the paletted copy, the output
	default:
		cost += 4*ow*oh + encodeOverhead // the output buffer as it grows
	}
	return cost
}
