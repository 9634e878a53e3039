package crypto

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestHIBP(t *testing.T) {
	t.Parallel()
	// SHA-1("password") = 5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/range/5BAA6" {
			fmt.Fprint(w, "0000000000000000000000000000000000A:1\r\n")
			return
		}
		fmt.Fprint(w, "1E4C9B93F3F0682250B6CF8331B7EE68FD8:3861493\r\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA:0\r\n")
	}))
	defer srv.Close()
	h := &HIBP{BaseURL: srv.URL}
	if p, err := h.Pwned(context.Background(), "password"); err != nil || !p {
		t.Errorf("password: %v %v", p, err)
	}
	if p, err := h.Pwned(context.Background(), "a-long-unusual-passphrase-42"); err != nil || p {
		t.Errorf("unusual: %v %v", p, err)
	}
}
