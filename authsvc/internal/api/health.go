package api

import "github.com/gofiber/fiber/v3"

// healthResponse is GoTrue's GET /health body.
type healthResponse struct {
	Version     string `json:"version"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// health answers 200 while the process serves, whatever the database.
func (a *API) health(c fiber.Ctx) error {
	return c.JSON(healthResponse{
		Version:     Version,
		Name:        "GoTrue",
		Description: "GoTrue is a user registration and authentication API",
	})
}
