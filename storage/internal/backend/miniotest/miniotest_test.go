package miniotest

import (
	"errors"
	"net"
	"net/http"
	"testing"
)

// A server whose port was taken after it was picked exits, and startOn
// says so (errExited), so Start can pick again; Start's own server answers.
func TestStartOnATakenPort(t *testing.T) {
	bin := binary(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	_, err = startOn(t, bin, taken.Addr().(*net.TCPAddr).Port, freePort(t))
	if !errors.Is(err, errExited) {
		t.Fatalf("startOn a taken port: %v, want errExited", err)
	}

	endpoint, _, _ := Start(t)
	resp, err := http.Get(endpoint + "/minio/health/live")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("health: %s", resp.Status)
	}
}
