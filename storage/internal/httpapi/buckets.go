package httpapi

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/storage/internal/db"
	"github.com/kejanest/kejanest/storage/internal/objects"
	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

func (h *handlers) listBuckets(c fiber.Ctx) error {
	who, err := h.caller(c)
	if err != nil {
		return err
	}
	q := db.BucketList{
		SortColumn: strings.Clone(c.Query("sortColumn")),
		SortDesc:   strings.EqualFold(c.Query("sortOrder"), "desc"),
		Search:     strings.Clone(c.Query("search")),
	}
	q.Limit, _ = strconv.Atoi(c.Query("limit"))
	q.Offset, _ = strconv.Atoi(c.Query("offset"))
	out, err := h.svc.ListBuckets(c.Context(), who, q)
	if err != nil {
		return err
	}
	return c.JSON(out)
}

func (h *handlers) getBucket(c fiber.Ctx) error {
	who, err := h.caller(c)
	if err != nil {
		return err
	}
	id, err := param(c, "id")
	if err != nil {
		return err
	}
	b, err := h.svc.GetBucket(c.Context(), who, id)
	if err != nil {
		return err
	}
	return c.JSON(b)
}

// bucketBody is POST/PUT /bucket's body.
type bucketBody struct {
	ID               string          `json:"id"`
	Name             string          `json:"name"`
	Public           *bool           `json:"public"`
	FileSizeLimit    json.RawMessage `json:"file_size_limit"`
	AllowedMimeTypes []string        `json:"allowed_mime_types"`
	Type             string          `json:"type"`

	hasMimes bool
}

func (h *handlers) bucketInput(c fiber.Ctx) (db.BucketInput, error) {
	var raw map[string]json.RawMessage
	if err := readJSON(c, &raw); err != nil {
		return db.BucketInput{}, err
	}
	var b bucketBody
	if len(raw) > 0 {
		buf, _ := json.Marshal(raw)
		if err := json.Unmarshal(buf, &b); err != nil {
			return db.BucketInput{}, err
		}
	}
	in := db.BucketInput{ID: b.ID, Name: b.Name, Public: b.Public, AllowedMimeTypes: b.AllowedMimeTypes, Type: b.Type}
	if _, ok := raw["file_size_limit"]; ok {
		lim, err := objects.ParseFileSizeLimit(b.FileSizeLimit)
		if err != nil {
			return in, err
		}
		// Upstream's parseMaxSizeLimit: never above the global limit.
		if lim != nil && h.svc.FileSizeLimit > 0 && *lim > h.svc.FileSizeLimit {
			return in, storageerr.EntityTooLarge()
		}
		in.FileSizeLimit, in.SetLimit = lim, true
	}
	_, in.SetMimes = raw["allowed_mime_types"]
	return in, nil
}

func (h *handlers) createBucket(c fiber.Ctx) error {
	who, err := h.caller(c)
	if err != nil {
		return err
	}
	in, err := h.bucketInput(c)
	if err != nil {
		return err
	}
	if err := h.svc.CreateBucket(c.Context(), who, in); err != nil {
		return err
	}
	id := in.ID
	if id == "" {
		id = in.Name
	}
	return c.JSON(fiber.Map{"name": id})
}

func (h *handlers) updateBucket(c fiber.Ctx) error {
	who, err := h.caller(c)
	if err != nil {
		return err
	}
	in, err := h.bucketInput(c)
	if err != nil {
		return err
	}
	if in.ID, err = param(c, "id"); err != nil {
		return err
	}
	if err := h.svc.UpdateBucket(c.Context(), who, in); err != nil {
		return err
	}
	return message(c, "Successfully updated")
}

func (h *handlers) emptyBucket(c fiber.Ctx) error {
	who, err := h.caller(c)
	if err != nil {
		return err
	}
	id, err := param(c, "id")
	if err != nil {
		return err
	}
	if err := h.svc.EmptyBucket(c.Context(), who, id); err != nil {
		return err
	}
	return message(c, "Empty bucket has been queued. Completion may take up to an hour.")
}

func (h *handlers) deleteBucket(c fiber.Ctx) error {
	who, err := h.caller(c)
	if err != nil {
		return err
	}
	id, err := param(c, "id")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteBucket(c.Context(), who, id); err != nil {
		return err
	}
	return message(c, "Successfully deleted")
}
