package resumable

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// maxMetadataHeader bounds the Upload-Metadata header parsed.
const maxMetadataHeader = 16 << 10

// ParseMetadata reads a TUS Upload-Metadata header: comma-separated pairs of
// a key and an optional standard-base64 value, separated by one space. Keys
// are non-empty, hold no space or comma, and appear once (TUS 1.0.0,
// "Upload-Metadata").
func ParseMetadata(h string) (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(h) == "" {
		return out, nil
	}
	if len(h) > maxMetadataHeader {
		return nil, fmt.Errorf("Upload-Metadata: longer than %d bytes", maxMetadataHeader)
	}
	for _, pair := range strings.Split(h, ",") {
		pair = strings.TrimSpace(pair)
		key, enc, hasValue := strings.Cut(pair, " ")
		if key == "" || strings.ContainsAny(key, " \t") {
			return nil, fmt.Errorf("Upload-Metadata: malformed pair %q", pair)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("Upload-Metadata: key %q repeated", key)
		}
		var val []byte
		if hasValue {
			if strings.ContainsAny(enc, " \t") {
				return nil, fmt.Errorf("Upload-Metadata: malformed pair %q", pair)
			}
			var err error
			if val, err = base64.StdEncoding.DecodeString(enc); err != nil {
				return nil, fmt.Errorf("Upload-Metadata: value of %q is not base64", key)
			}
		}
		out[key] = string(val)
	}
	return out, nil
}
