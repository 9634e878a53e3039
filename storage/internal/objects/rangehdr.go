package objects

import (
	"strconv"
	"strings"

	"github.com/kejanest/kejanest/storage/internal/backend"
	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// ParseRange reads a single-range Range header ("bytes=a-b", "bytes=a-",
// "bytes=-n") against an object of size bytes. It returns nil for no header
// or one it ignores (multiple ranges, other units: the whole object is
// served, as RFC 9110 allows), and InvalidRange when the range cannot be
// satisfied.
func ParseRange(h string, size int64) (*backend.Range, error) {
	h = strings.TrimSpace(h)
	if h == "" {
		return nil, nil
	}
	spec, ok := strings.CutPrefix(h, "bytes=")
	if !ok || strings.Contains(spec, ",") {
		return nil, nil
	}
	first, last, ok := strings.Cut(strings.TrimSpace(spec), "-")
	if !ok {
		return nil, storageerr.InvalidRange()
	}
	if first == "" { // suffix: the last n bytes
		n, err := strconv.ParseInt(last, 10, 64)
		if err != nil || n <= 0 {
			return nil, storageerr.InvalidRange()
		}
		if size == 0 {
			return nil, storageerr.InvalidRange()
		}
		n = min(n, size)
		return &backend.Range{Start: size - n, Length: n}, nil
	}
	start, err := strconv.ParseInt(first, 10, 64)
	if err != nil || start < 0 || start >= size {
		return nil, storageerr.InvalidRange()
	}
	end := size - 1
	if last != "" {
		e, err := strconv.ParseInt(last, 10, 64)
		if err != nil || e < start {
			return nil, storageerr.InvalidRange()
		}
		end = min(e, size-1)
	}
	return &backend.Range{Start: start, Length: end - start + 1}, nil
}
