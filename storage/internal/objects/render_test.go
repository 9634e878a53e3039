package objects

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"image/png"
	"testing"
	"time"
)

func TestSignedRender(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	s, err := NewSigner(secret, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.SignRender("b/a.png", "height:100,width:200,resize:contain", "origin", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.VerifyRender(tok, "b/a.png")
	if err != nil {
		t.Fatal(err)
	}
	if g.Transformations != "height:100,width:200,resize:contain" || g.Format != "origin" || !g.Expires.Equal(now.Add(time.Minute)) {
		t.Errorf("grant = %+v", g)
	}
	tests := []struct {
		name, token, url, want string
	}{
		{"other object", tok, "b/b.png", "InvalidSignature: The url do not match the signature"},
		{"missing", "", "b/a.png", "MissingParameter: Missing Required Parameter token"},
		{"garbage", "x.y.z", "b/a.png", "InvalidJWT: jwt malformed"},
	}
	for _, tt := range tests {
		if got := code(func() error { _, err := s.VerifyRender(tt.token, tt.url); return err }()); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	// A plain download token renders without transformations, as upstream.
	plain, _ := s.SignDownload("b/a.png", time.Minute)
	if g, err := s.VerifyRender(plain, "b/a.png"); err != nil || g.Transformations != "" {
		t.Errorf("plain token: %+v, %v", g, err)
	}
	// An upload token is not a download grant.
	up, _ := s.SignUpload("b/a.png", "", "", false, time.Minute)
	if got := code(func() error { _, err := s.VerifyRender(up, "b/a.png"); return err }()); got != "InvalidJWT: invalid signature" {
		t.Errorf("upload token: %q", got)
	}
	// Empty claims are left out, and a render token still downloads.
	bare, _ := s.SignRender("b/a.png", "", "", time.Minute)
	if err := s.VerifyDownload(bare, "b/a.png"); err != nil {
		t.Errorf("render token as download: %v", err)
	}
	late, _ := NewSigner(secret, func() time.Time { return now.Add(2 * time.Minute) })
	if got := code(func() error { _, err := late.VerifyRender(tok, "b/a.png"); return err }()); got != "InvalidJWT: jwt expired" {
		t.Errorf("expired: %q", got)
	}
}

func TestDecodeCost(t *testing.T) {
	t.Parallel()
	var jb, pb bytes.Buffer
	if err := jpeg.Encode(&jb, image.NewRGBA(image.Rect(0, 0, 64, 32)), nil); err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(&pb, image.NewNRGBA(image.Rect(0, 0, 64, 32))); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		format string
		head   []byte
		min    int64
		wantOK bool
	}{
		// YCbCr 4:2:0 plus the RGBA a late APP14 marker would add.
		{"jpeg", "jpeg", jb.Bytes(), 64*32*4 + 64*32*3/2, true},
		{"unparsed jpeg gets the worst case", "jpeg", []byte{0xff, 0xd8}, 64 * 32 * 4, true},
		{"png nrgba", "png", pb.Bytes(), 64 * 32 * 4, true},
		{"gif is not costed here", "gif", []byte("GIF89a"), 0, false},
	}
	for _, tt := range tests {
		c, ok := DecodeCost(tt.format, tt.head, 64, 32)
		if ok != tt.wantOK || c < tt.min {
			t.Errorf("%s: cost %d ok %v, want at least %d, %v", tt.name, c, ok, tt.min, tt.wantOK)
		}
	}
}

func TestBudgetAcquireForRender(t *testing.T) {
	t.Parallel()
	b := NewImageBudget(100, 0)
	release, err := b.Acquire(context.Background(), 60)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Acquire(context.Background(), 60); code(err) == "" {
		t.Error("a second grant beyond the budget was given")
	}
	release()
	release() // once only
	if b.InUse() != 0 {
		t.Errorf("in use %d after release", b.InUse())
	}
	if _, err := b.Acquire(context.Background(), 101); code(err) == "" {
		t.Error("a grant larger than the budget was given")
	}
}
