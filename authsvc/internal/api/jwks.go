package api

import (
	"encoding/json"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/authsvc/internal/apierr"
)

// jwks is GET /.well-known/jwks.json: the public signing keys ({"keys":[]}
// when tokens are HS256 only).
func (a *API) jwks(c fiber.Ctx) error {
	b, err := a.signer.JWKS()
	if err != nil {
		return apierr.Internal(err)
	}
	c.Set(fiber.HeaderCacheControl, "public, max-age=600")
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(b)
}

// structToMap turns a JSON-encodable value into a map (to add fields).
func structToMap(v any) map[string]any {
	b, _ := json.Marshal(v)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}
