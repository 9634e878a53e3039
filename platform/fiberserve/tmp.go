package fiberserve

import _ "github.com/gofiber/fiber/v3"
