package httpapi

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/rest/pgrst"
)

// TestCopyRequest checks that the request the pipeline gets stays intact
// after Fiber reuses its buffers for later requests: the pipeline keeps
// parsed reads (path, query, headers) across requests.
func TestCopyRequest(t *testing.T) {
	t.Parallel()
	var kept []*pgrst.Request
	app := fiber.New()
	app.Use(func(c fiber.Ctx) error {
		kept = append(kept, copyRequest(c))
		return c.SendStatus(204)
	})
	send := func(target, hdr string) {
		req := httptest.NewRequest("GET", target, nil)
		req.Header.Set("X-Test", hdr)
		if _, err := app.Test(req, fiber.TestConfig{Timeout: 5 * time.Second, FailOnTimeout: true}); err != nil {
			t.Fatal(err)
		}
	}
	send("/aaaa%20b?select=a", "first")
	send("/cccc%20d?select=c", "other")
	first := kept[0]
	if first.Method != "GET" || first.Path != "/aaaa b" || first.RawQuery != "select=a" || first.Header("X-Test") != "first" {
		t.Errorf("first request changed: %+v", *first)
	}
	if second := kept[1]; second.Path != "/cccc d" || second.RawQuery != "select=c" || second.Header("X-Test") != "other" {
		t.Errorf("second request: %+v", *second)
	}
}
