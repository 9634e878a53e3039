package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"math/bits"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// zeroZlib is a zlib stream of n zero bytes: one fixed-Huffman deflate
// block of a literal zero and then back-references of 258 bytes at
// distance 1. It is written directly (about 13 bits per 258 bytes), as
// compress/zlib under the race detector would take half a minute over the
// 120 MB of a near-cap image.
func zeroZlib(n int64) []byte {
	var out []byte
	var acc uint64
	var nacc uint
	put := func(v uint64, width uint) { // LSB first
		acc |= v << nacc
		nacc += width
		for nacc >= 8 {
			out = append(out, byte(acc))
			acc >>= 8
			nacc -= 8
		}
	}
	code := func(c uint64, width uint) { // Huffman codes go MSB first
		put(bits.Reverse64(c)>>(64-width), width)
	}
	out = append(out, 0x78, 0x01)
	put(1, 1) // final block
	put(1, 2) // fixed Huffman codes
	literal := func() { code(0x30, 8) }
	literal()
	left := n - 1
	for ; left >= 258; left -= 258 {
		code(0xC5, 8) // length 258 (code 285)
		code(0, 5)    // distance 1
	}
	for ; left > 0; left-- {
		literal()
	}
	code(0, 7) // end of block
	if nacc > 0 {
		put(0, 8-nacc)
	}
	adler := uint32(n%65521)<<16 | 1
	return binary.BigEndian.AppendUint32(out, adler)
}

// nearCapPNG is an 8-bit RGB PNG of w×h black pixels: well under a MB
// that decodes to 4·w·h bytes (image/png makes RGBA of RGB).
func nearCapPNG(w, h int) []byte {
	chunk := func(b *bytes.Buffer, typ string, data []byte) {
		_ = binary.Write(b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		_ = binary.Write(b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 2
	chunk(&out, "IHDR", ihdr)
	chunk(&out, "IDAT", zeroZlib(int64(h)*int64(1+3*w)))
	chunk(&out, "IEND", nil)
	return out.Bytes()
}

// TestImageMemoryCeiling sends 12 concurrent uploads of a PNG at the pixel
// cap (8000×5000: 160 MB once decoded, 1.85 GB for the twelve without the
// bound) to the service under its default image memory budget (256 MiB,
// room for one at a time), and checks its RSS never grows by more than
// that budget plus 64 MiB over its warmed-up level. Uploads are let in one
// after the other, each reusing the memory the last one held, until the
// others' queue wait (5 s here) ends and they are refused with SlowDown.
func TestImageMemoryCeiling(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	t.Parallel()
	const (
		budget    = 256 << 20
		slack     = 64 << 20
		uploads   = 12
		slowDown  = `{"statusCode":"429","code":"SlowDown","error":"Too Many Requests","message":"Too many images are being processed; retry later"}`
		queueWait = "5s"
	)
	s := startService(t, "IMAGE_PROCESSING_QUEUE_TIMEOUT="+queueWait)
	if code, body := s.do(t, "POST", "/bucket", "application/json", strings.NewReader(`{"name":"photos"}`), -1); code != 200 {
		t.Fatalf("create bucket: %d %s", code, body)
	}
	img := nearCapPNG(8000, 5000)
	// Warm up: pools, the first DB connections, a small image's decoder.
	small := nearCapPNG(64, 64)
	if code, body := s.do(t, "POST", "/object/photos/warm.png", "image/png", bytes.NewReader(small), int64(len(small))); code != 200 {
		t.Fatalf("warm-up upload: %d %s", code, body)
	}
	base, err := rss(s.cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	var peak atomic.Int64
	ctx, stop := context.WithCancel(context.Background())
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for ctx.Err() == nil {
			if r, err := rss(s.cmd.Process.Pid); err == nil && r > peak.Load() {
				peak.Store(r)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()

	start := time.Now()
	var stored, refused atomic.Int64
	var wg sync.WaitGroup
	for i := range uploads {
		wg.Go(func() {
			code, body := s.do(t, "POST", "/object/photos/big-"+string(rune('a'+i))+".png", "image/png", bytes.NewReader(img), int64(len(img)))
			switch {
			case code == 200:
				stored.Add(1)
			case code == 429 && body == slowDown:
				refused.Add(1)
			default:
				t.Errorf("upload %d: %d %s", i, code, body)
			}
		})
	}
	wg.Wait()
	stop()
	<-sampled

	growth := peak.Load() - base
	t.Logf("%d uploads of a %d-byte 8000×5000 PNG in %v: %d stored, %d refused; RSS base %d MiB, peak %d MiB, growth %d MiB (budget %d MiB)",
		uploads, len(img), time.Since(start).Round(time.Millisecond), stored.Load(), refused.Load(), base>>20, peak.Load()>>20, growth>>20, budget>>20)
	if stored.Load() == 0 {
		t.Error("no upload was stored")
	}
	if growth > budget+slack {
		t.Errorf("RSS grew by %d MiB, over the %d MiB image memory budget (+%d MiB)", growth>>20, budget>>20, slack>>20)
	}
}
