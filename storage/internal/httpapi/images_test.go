package httpapi

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/jpeg"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/kejanest/kejanest/storage/internal/objects"
)

// slowDown is the answer to an image upload that found the image memory
// budget full for its whole wait: upstream's SlowDown, HTTP 429.
const slowDown = `{"statusCode":"429","code":"SlowDown","error":"Too Many Requests","message":"Too many images are being processed; retry later"}`

// blankPNG is an 8-bit RGBA PNG of side×side transparent pixels, written
// row by row: a few KB that decode to 4·side² bytes.
func blankPNG(t *testing.T, side int) []byte {
	t.Helper()
	chunk := func(b *bytes.Buffer, typ string, data []byte) {
		_ = binary.Write(b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		_ = binary.Write(b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(side))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(side))
	ihdr[8], ihdr[9] = 8, 6
	chunk(&out, "IHDR", ihdr)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	row := make([]byte, 1+4*side)
	for range side {
		if _, err := zw.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	chunk(&out, "IDAT", z.Bytes())
	chunk(&out, "IEND", nil)
	return out.Bytes()
}

// TestImageUploadFlood: a flood of concurrent large image uploads is held
// to the image memory budget: one decodes, the others wait for the queue
// timeout and are refused with SlowDown (429), storing nothing, while
// small images sent at the same time fit beside it and are stored. The
// budget's accounting never goes over its limit. Without the bound every
// large upload decodes at once.
func TestImageUploadFlood(t *testing.T) {
	t.Parallel()
	// A 1000×1000 RGBA PNG costs about 5 MB (4 MB decoded, the encoder's
	// buffers): two never fit in 8 MiB, and small JPEG photos (about 150
	// KB each) fit beside one.
	const limit = 8 << 20
	budget := objects.NewImageBudget(limit, 100*time.Millisecond)
	api := newTestAPIImages(t, 1<<20, budget)
	base := serve(t, api.app)
	client := &http.Client{Timeout: time.Minute}
	if status, _, b := send(t, client, "POST", base+"/bucket", api.serviceKey, "application/json", []byte(`{"name":"photos"}`), false); status != 200 {
		t.Fatalf("create bucket: %d %s", status, b)
	}
	large := blankPNG(t, 1000)
	var small bytes.Buffer
	if err := jpeg.Encode(&small, image.NewGray(image.Rect(0, 0, 64, 48)), nil); err != nil {
		t.Fatal(err)
	}

	const floods, smalls = 12, 6
	type result struct {
		large  bool
		status int
		body   string
	}
	results := make(chan result, floods+smalls)
	var wg sync.WaitGroup
	for i := range floods + smalls {
		wg.Go(func() {
			img, name, ct := large, fmt.Sprintf("large/%d.png", i), "image/png"
			if i >= floods {
				img, name, ct = small.Bytes(), fmt.Sprintf("small/%d.jpg", i), "image/jpeg"
			}
			status, _, body := send(t, client, "POST", base+"/object/photos/"+name, api.serviceKey, ct, img, false)
			results <- result{large: i < floods, status: status, body: body}
		})
	}
	wg.Wait()
	close(results)
	var stored, refused int
	for r := range results {
		switch {
		case r.status == 200:
			stored++
		case r.large && r.status == 429 && r.body == slowDown:
			refused++
		default:
			t.Errorf("large %v: %d %s", r.large, r.status, r.body)
		}
		if !r.large && r.status != 200 {
			t.Errorf("a small image was refused beside the flood: %d %s", r.status, r.body)
		}
	}
	if refused == 0 || stored < smalls+1 {
		t.Errorf("%d stored, %d refused with SlowDown; want every small image and at least one large stored, and the flood refused", stored, refused)
	}
	if peak := budget.Peak(); peak > limit {
		t.Errorf("image memory peaked at %d bytes, over the %d budget", peak, limit)
	}
	if n := budget.InUse(); n != 0 {
		t.Errorf("%d bytes of image memory still taken", n)
	}
	if files := backendFiles(t, api.dir); len(files) != stored {
		t.Errorf("%d files stored for %d successful uploads: %v", len(files), stored, files)
	}
}
