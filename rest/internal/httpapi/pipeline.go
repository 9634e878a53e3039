package httpapi

import (
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/rest/pgrst"
)

// serve adapts Fiber to the pipeline: it copies the request out of Fiber's
// reusable buffers, runs it, and writes the response.
func serve(h *pgrst.Handler) fiber.Handler {
	return func(c fiber.Ctx) error {
		req := copyRequest(c)
		resp, err := h.Serve(c.Context(), req)
		if err != nil {
			return err
		}
		for _, kv := range resp.Headers {
			c.Set(kv[0], kv[1])
		}
		c.Status(resp.Status)
		if len(resp.Body) > 0 {
			return c.Send(resp.Body)
		}
		return nil
	}
}

// copyRequest copies the request line and headers out of Fiber's buffers
// (which it reuses for the next request) into one string, which the
// request's strings are slices of; the pipeline may keep them.
func copyRequest(c fiber.Ctx) *pgrst.Request {
	path := c.Path()
	if p, err := url.PathUnescape(path); err == nil {
		path = p
	}
	query := c.Request().URI().QueryString()
	hdr := &c.Request().Header
	size, n := len(path)+len(query), 0
	for k, v := range hdr.All() {
		size += len(k) + len(v)
		n++
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(path)
	b.Write(query)
	for k, v := range hdr.All() {
		b.Write(k)
		b.Write(v)
	}
	all := b.String()
	// Headers are read back in the same order they were written.
	req := &pgrst.Request{Method: c.Method(), Headers: make([][2]string, 0, n), Body: append([]byte(nil), c.Body()...)}
	at := 0
	take := func(n int) string {
		s := all[at : at+n]
		at += n
		return s
	}
	req.Path = take(len(path))
	req.RawQuery = take(len(query))
	for k, v := range hdr.All() {
		req.Headers = append(req.Headers, [2]string{take(len(k)), take(len(v))})
	}
	return req
}
