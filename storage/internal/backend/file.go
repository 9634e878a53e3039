package backend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File stores objects as files under a root directory. A Put writes a
// temporary file in the target's directory and renames it into place, so a
// reader sees either the whole object or none.
type File struct {
	root string
}

// NewFile returns a File rooted at dir, creating it if needed.
func NewFile(dir string) (*File, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("file backend root: %w", err)
	}
	if err := os.MkdirAll(abs, 0o750); err != nil {
		return nil, fmt.Errorf("file backend root: %w", err)
	}
	return &File{root: abs}, nil
}

// path maps a key onto a file below the root, refusing any key that would
// leave it (defence in depth: keys are built from validated names).
func (f *File) path(key string) (string, error) {
	if key == "" || strings.HasPrefix(key, "/") || strings.Contains(key, "\x00") {
		return "", fmt.Errorf("file backend: invalid key %q", key)
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", fmt.Errorf("file backend: invalid key %q", key)
		}
	}
	p := filepath.Join(f.root, filepath.FromSlash(key))
	if !strings.HasPrefix(p, f.root+string(filepath.Separator)) {
		return "", fmt.Errorf("file backend: invalid key %q", key)
	}
	return p, nil
}

// Put implements Backend.
func (f *File) Put(ctx context.Context, key string, r io.Reader, _ string) (int64, error) {
	p, err := f.path(key)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		return 0, fmt.Errorf("file backend put: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".upload-*")
	if err != nil {
		return 0, fmt.Errorf("file backend put: %w", err)
	}
	done := false
	defer func() {
		if !done {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	n, err := io.Copy(tmp, ctxReader{ctx, r})
	if err != nil {
		return n, fmt.Errorf("file backend put: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return n, fmt.Errorf("file backend put: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return n, fmt.Errorf("file backend put: %w", err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return n, fmt.Errorf("file backend put: %w", err)
	}
	done = true
	return n, nil
}

// Get implements Backend.
func (f *File) Get(_ context.Context, key string, rng *Range) (io.ReadCloser, error) {
	p, err := f.path(key)
	if err != nil {
		return nil, err
	}
	fh, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("file backend get: %w", err)
	}
	if rng == nil {
		return fh, nil
	}
	if _, err := fh.Seek(rng.Start, io.SeekStart); err != nil {
		_ = fh.Close()
		return nil, fmt.Errorf("file backend get: %w", err)
	}
	if rng.Length < 0 {
		return fh, nil
	}
	return readCloser{io.LimitReader(fh, rng.Length), fh}, nil
}

// Stat implements Backend.
func (f *File) Stat(_ context.Context, key string) (Info, error) {
	p, err := f.path(key)
	if err != nil {
		return Info{}, err
	}
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Info{}, ErrNotFound
	}
	if err != nil {
		return Info{}, fmt.Errorf("file backend stat: %w", err)
	}
	return Info{Size: st.Size(), LastModified: st.ModTime()}, nil
}

// Copy implements Backend.
func (f *File) Copy(ctx context.Context, src, dst string) error {
	rc, err := f.Get(ctx, src, nil)
	if err != nil {
		return err
	}
	defer rc.Close()
	_, err = f.Put(ctx, dst, rc, "")
	return err
}

// Delete implements Backend. It also removes directories left empty, up to
// the root.
func (f *File) Delete(_ context.Context, keys ...string) error {
	var errs []error
	for _, k := range keys {
		p, err := f.path(k)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("file backend delete: %w", err))
			continue
		}
		for d := filepath.Dir(p); d != f.root && strings.HasPrefix(d, f.root); d = filepath.Dir(d) {
			if os.Remove(d) != nil { // not empty (or gone): stop
				break
			}
		}
	}
	return errors.Join(errs...)
}

// List implements Backend: it walks the directory holding prefix and
// skips the temporary files of Puts in progress.
func (f *File) List(_ context.Context, prefix string) ([]Entry, error) {
	dir := f.root
	if i := strings.LastIndex(prefix, "/"); i > 0 {
		p, err := f.path(prefix[:i])
		if err != nil {
			return nil, err
		}
		dir = p
	}
	var out []Entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while walking (or never there)
			}
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".upload-") {
			return nil
		}
		rel, err := filepath.Rel(f.root, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if !strings.HasPrefix(key, prefix) {
			return nil
		}
		st, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		out = append(out, Entry{Key: key, Info: Info{Size: st.Size(), LastModified: st.ModTime()}})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("file backend list: %w", err)
	}
	return out, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// ctxReader stops a copy once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
