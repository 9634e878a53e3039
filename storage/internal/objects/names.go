// Package objects is the storage service's domain layer: name and MIME
// rules, image sanitising, signed URL tokens, and the operations (upload,
// download, list, move, copy, delete, buckets) that combine the database,
// where RLS decides, with the byte backend. It has no HTTP types in it.
package objects

import (
	"strings"
	"unicode/utf8"

	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// Name limits. S3 keys are at most 1024 bytes; the backend key adds the
// bucket and a version, so object names stay below that.
const (
	MaxNameBytes       = 960
	MaxBucketNameBytes = 100
)

// keyChar reports whether r may appear in an object name: upstream's
// isValidKey set (word characters, / ! - . * ' ( ) space & $ @ = ; : + , ?).
func keyChar(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
		return true
	}
	return strings.ContainsRune("/!-.*'() &$@=;:+,?", r)
}

// ValidName reports whether name is an acceptable object name: upstream's
// character rules, at most MaxNameBytes, no leading or trailing slash, no
// empty, "." or ".." segment.
func ValidName(name string) bool {
	if name == "" || len(name) > MaxNameBytes || !utf8.ValidString(name) {
		return false
	}
	for _, r := range name {
		if !keyChar(r) {
			return false
		}
	}
	if strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") {
		return false
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// ValidBucketName reports whether id is an acceptable bucket id/name:
// upstream's isValidBucketName (the key characters without "/"), at most
// MaxBucketNameBytes, and not "." or "..".
func ValidBucketName(id string) bool {
	if id == "" || len(id) > MaxBucketNameBytes || id == "." || id == ".." {
		return false
	}
	for _, r := range id {
		if r == '/' || !keyChar(r) {
			return false
		}
	}
	return true
}

// CheckName returns InvalidKey unless ValidName(name).
func CheckName(name string) error {
	if !ValidName(name) {
		return storageerr.InvalidKey(name)
	}
	return nil
}

// CheckBucket returns InvalidBucketName unless ValidBucketName(id).
func CheckBucket(id string) error {
	if !ValidBucketName(id) {
		return storageerr.InvalidBucketName()
	}
	return nil
}
