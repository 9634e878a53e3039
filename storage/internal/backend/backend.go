// Package backend stores object bytes: on local disk (File) or in any S3
// service (S3: MinIO, AWS S3, R2) behind the one Backend interface. Both
// stream in both directions; neither buffers a whole object in memory.
//
// Keys are built by the service with Key from a validated bucket id, object
// name and server-generated version, never taken raw from a client.
package backend

import (
	"context"
	"errors"
	"io"
	"time"
)

// ErrNotFound is returned by Get and Stat when no object has the key.
var ErrNotFound = errors.New("backend: object not found")

// Range selects bytes [Start, Start+Length) of an object; Length < 0 means
// through the end.
type Range struct {
	Start, Length int64
}

// Info describes a stored object.
type Info struct {
	Size         int64
	LastModified time.Time
}

// Backend is an object store. Implementations are safe for concurrent use.
type Backend interface {
	// Put stores r under key. The object becomes visible only once
	// complete: a failed or cancelled Put leaves nothing (or the previous
	// object) behind. It returns the number of bytes stored.
	Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error)
	// Get opens the object, or the part of it rng selects (nil: all).
	Get(ctx context.Context, key string, rng *Range) (io.ReadCloser, error)
	// Stat describes the object.
	Stat(ctx context.Context, key string) (Info, error)
	// Copy duplicates src to dst inside the backend.
	Copy(ctx context.Context, src, dst string) error
	// Delete removes the keys; missing ones are not an error.
	Delete(ctx context.Context, keys ...string) error
	// List returns every object whose key starts with prefix, in key
	// order (resumable uploads find their parts and expired uploads with
	// it; object listings come from the database, never from here).
	List(ctx context.Context, prefix string) ([]Entry, error)
}

// Entry is one object found by List.
type Entry struct {
	Key string
	Info
}

// Key is where the bytes of one version of an object live:
// <bucket>/<name>/<version>, as Supabase Storage lays them out (without its
// tenant prefix). bucket and name must already be validated.
func Key(bucket, name, version string) string {
	return bucket + "/" + name + "/" + version
}
