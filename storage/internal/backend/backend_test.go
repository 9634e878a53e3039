package backend

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kejanest/kejanest/storage/internal/backend/miniotest"
)

// contract runs the Backend contract against b.
func contract(t *testing.T, b Backend) {
	ctx := context.Background()
	payload := make([]byte, 3<<20+17)
	_, _ = rand.Read(payload)

	t.Run("put get stat", func(t *testing.T) {
		n, err := b.Put(ctx, "bkt/dir/obj.bin/v1", bytes.NewReader(payload), "application/octet-stream")
		if err != nil || n != int64(len(payload)) {
			t.Fatalf("Put = %d, %v", n, err)
		}
		rc, err := b.Get(ctx, "bkt/dir/obj.bin/v1", nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		_ = rc.Close()
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("Get: %d bytes, %v", len(got), err)
		}
		st, err := b.Stat(ctx, "bkt/dir/obj.bin/v1")
		if err != nil || st.Size != int64(len(payload)) {
			t.Fatalf("Stat = %+v, %v", st, err)
		}
	})
	t.Run("ranges", func(t *testing.T) {
		for _, r := range []Range{{0, 1}, {5, 10}, {100, -1}, {int64(len(payload)) - 3, 3}} {
			rc, err := b.Get(ctx, "bkt/dir/obj.bin/v1", &r)
			if err != nil {
				t.Fatalf("%+v: %v", r, err)
			}
			got, _ := io.ReadAll(rc)
			_ = rc.Close()
			end := int64(len(payload))
			if r.Length >= 0 {
				end = r.Start + r.Length
			}
			if !bytes.Equal(got, payload[r.Start:end]) {
				t.Errorf("range %+v: got %d bytes", r, len(got))
			}
		}
	})
	t.Run("missing", func(t *testing.T) {
		if _, err := b.Get(ctx, "bkt/none/v1", nil); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get missing = %v", err)
		}
		if _, err := b.Stat(ctx, "bkt/none/v1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Stat missing = %v", err)
		}
	})
	t.Run("failed put leaves nothing", func(t *testing.T) {
		r := io.MultiReader(bytes.NewReader(payload[:1<<20]), errReader{})
		if _, err := b.Put(ctx, "bkt/partial/v1", r, ""); err == nil {
			t.Fatal("Put of a failing reader succeeded")
		}
		if _, err := b.Stat(ctx, "bkt/partial/v1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("partial object visible: %v", err)
		}
	})
	t.Run("list", func(t *testing.T) {
		keys := []string{"#up/a/info", "#up/a/part-2", "#up/a/part-1", "#up/ab/info", "#upx/c"}
		for i, k := range keys {
			if _, err := b.Put(ctx, k, bytes.NewReader(payload[:i+1]), ""); err != nil {
				t.Fatal(err)
			}
		}
		t.Cleanup(func() { _ = b.Delete(ctx, keys...) })
		for _, tc := range []struct {
			prefix string
			want   []string
			sizes  []int64
		}{
			{"#up/a/", []string{"#up/a/info", "#up/a/part-1", "#up/a/part-2"}, []int64{1, 3, 2}},
			{"#up/", []string{"#up/a/info", "#up/a/part-1", "#up/a/part-2", "#up/ab/info"}, []int64{1, 3, 2, 4}},
			{"#up/none/", nil, nil},
		} {
			got, err := b.List(ctx, tc.prefix)
			if err != nil {
				t.Fatalf("List(%q): %v", tc.prefix, err)
			}
			var names []string
			var sizes []int64
			for _, e := range got {
				names = append(names, e.Key)
				sizes = append(sizes, e.Size)
			}
			if fmt.Sprint(names) != fmt.Sprint(tc.want) || fmt.Sprint(sizes) != fmt.Sprint(tc.sizes) {
				t.Errorf("List(%q) = %v %v, want %v %v", tc.prefix, names, sizes, tc.want, tc.sizes)
			}
		}
	})
	t.Run("copy delete", func(t *testing.T) {
		if err := b.Copy(ctx, "bkt/dir/obj.bin/v1", "bkt2/copy/v2"); err != nil {
			t.Fatal(err)
		}
		if st, err := b.Stat(ctx, "bkt2/copy/v2"); err != nil || st.Size != int64(len(payload)) {
			t.Fatalf("copy Stat = %+v, %v", st, err)
		}
		if err := b.Delete(ctx, "bkt/dir/obj.bin/v1", "bkt2/copy/v2", "bkt/never/v0"); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Stat(ctx, "bkt2/copy/v2"); !errors.Is(err, ErrNotFound) {
			t.Errorf("deleted object still there: %v", err)
		}
	})
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("client went away") }

func TestFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b, err := NewFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	contract(t, b)
	// Nothing but directories may remain: no temp files from the failed Put.
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}

func TestFileRefusesEscapingKeys(t *testing.T) {
	t.Parallel()
	b, err := NewFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"", "/abs", "a/../../x", "a//b", "a/./b", "..", "a\x00b"} {
		if _, err := b.Put(context.Background(), k, strings.NewReader("x"), ""); err == nil {
			t.Errorf("Put(%q) accepted", k)
		}
	}
}

func TestS3AgainstMinIO(t *testing.T) {
	t.Parallel()
	endpoint, user, pass := miniotest.Start(t)
	b, err := NewS3(S3Options{Endpoint: endpoint, Bucket: "kejanest-test", Region: "us-east-1", AccessKeyID: user, SecretAccessKey: pass, ForcePathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.EnsureBucket(context.Background(), "us-east-1"); err != nil {
		t.Fatal(err)
	}
	contract(t, b)
}
