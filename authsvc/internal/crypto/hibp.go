package crypto

import (
	"bufio"
	"context"
	"crypto/sha1" // #nosec: the Pwned Passwords range API is keyed by SHA-1 prefixes
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// HIBP checks passwords against Have I Been Pwned's Pwned Passwords range
// API (k-anonymity: only the first five hex digits of the SHA-1 leave the
// process).
type HIBP struct {
	// BaseURL defaults to https://api.pwnedpasswords.com.
	BaseURL string
	Client  *http.Client
}

// Pwned reports whether password appears in a breach corpus.
func (h *HIBP) Pwned(ctx context.Context, password string) (bool, error) {
	sum := sha1.Sum([]byte(password)) // #nosec
	hexSum := strings.ToUpper(hex.EncodeToString(sum[:]))
	prefix, suffix := hexSum[:5], hexSum[5:]
	base := h.BaseURL
	if base == "" {
		base = "https://api.pwnedpasswords.com"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/range/"+prefix, nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Add-Padding", "true")
	c := h.Client
	if c == nil {
		c = &http.Client{Timeout: 5 * time.Second}
	}
	resp, err := c.Do(req)
	if err != nil {
		return false, fmt.Errorf("pwned passwords: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("pwned passwords: status %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		s, count, _ := strings.Cut(strings.TrimSpace(sc.Text()), ":")
		if strings.EqualFold(s, suffix) && count != "0" {
			return true, nil
		}
	}
	return false, sc.Err()
}
