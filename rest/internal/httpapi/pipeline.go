package httpapi

import (
	"net/url"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/rest/pgrst"
)

// serve adapts Fiber to the pipeline: it copies the request out of Fiber's
// reusable buffers, runs it, and writes the response.
func serve(h *pgrst.Handler) fiber.Handler {
	return func(c fiber.Ctx) error {
		path := c.Path()
		if p, err := url.PathUnescape(path); err == nil {
			path = p
		}
		req := &pgrst.Request{
			Method:   c.Method(),
			Path:     path,
			RawQuery: string(c.Request().URI().QueryString()),
			Body:     append([]byte(nil), c.Body()...),
		}
		for k, v := range c.Request().Header.All() {
			req.Headers = append(req.Headers, [2]string{string(k), string(v)})
		}
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
