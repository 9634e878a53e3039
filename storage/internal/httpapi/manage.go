package httpapi

import (
	"encoding/base64"
	"encoding/json"

	"github.com/gofiber/fiber/v3"

	"github.com/kejanest/kejanest/storage/internal/db"
	"github.com/kejanest/kejanest/storage/internal/objects"
	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// infoBody is an object as GET /object/info answers it.
func infoBody(o db.Object) fiber.Map {
	m := objects.ParseMeta(o)
	// Upstream answers an object without user metadata with {}.
	user := json.RawMessage(`{}`)
	if len(o.UserMetadata) > 0 && string(o.UserMetadata) != "null" {
		user = json.RawMessage(o.UserMetadata)
	}
	return fiber.Map{
		"id": o.ID, "version": o.Version, "name": o.Name, "bucket_id": o.BucketID,
		"size": m.Size, "content_type": m.Mimetype, "cache_control": m.CacheControl, "etag": m.ETag,
		"metadata": user, "last_modified": o.UpdatedAt, "created_at": o.CreatedAt,
	}
}

func (h *handlers) deleteOne(c fiber.Ctx) error {
	who, err := h.caller(c)
	if err != nil {
		return err
	}
	bucket, name, err := objectPath(c)
	if err != nil {
		return err
	}
	if err := objects.CheckName(name); err != nil {
		return err
	}
	rows, err := h.svc.Remove(c.Context(), who, bucket, []string{name})
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return storageerr.NoSuchKey()
	}
	return message(c, "Successfully deleted")
}

func (h *handlers) deleteMany(c fiber.Ctx) error {
	who, err := h.caller(c)
	if err != nil {
		return err
	}
	bucket, err := param(c, "bucket")
	if err != nil {
		return err
	}
	var body struct {
		Prefixes []string `json:"prefixes"`
	}
	if err := readJSON(c, &body); err != nil {
		return err
	}
	rows, err := h.svc.Remove(c.Context(), who, bucket, body.Prefixes)
	if err != nil {
		return err
	}
	return c.JSON(rows)
}

type sortBy struct {
	Column string `json:"column"`
	Order  string `json:"order"`
}

// checkV2 applies list-v2's body schema to sortBy (column required, column
// and order from their enums), with upstream's validation messages.
// invalidBody is upstream's answer to a body that fails its JSON schema.
func invalidBody(msg string) error {
	e := storageerr.InvalidRequest(400, msg)
	e.ErrorText = "Error"
	return e
}

func (s sortBy) checkV2() error {
	invalid := invalidBody
	switch {
	case s.Column == "":
		return invalid("body/sortBy must have required property 'column'")
	case s.Column != "name" && s.Column != "updated_at" && s.Column != "created_at":
		return invalid("body/sortBy/column must be equal to one of the allowed values")
	case s.Order != "" && s.Order != "asc" && s.Order != "desc":
		return invalid("body/sortBy/order must be equal to one of the allowed values")
	}
	return nil
}

func (h *handlers) list(c fiber.Ctx) error {
	who, err := h.caller(c)
	if err != nil {
		return err
	}
	bucket, err := param(c, "bucket")
	if err != nil {
		return err
	}
	var body struct {
		Prefix string `json:"prefix"`
		Limit  int    `json:"limit"`
		Offset int    `json:"offset"`
		SortBy sortBy `json:"sortBy"`
		Search string `json:"search"`
	}
	if err := readJSON(c, &body); err != nil {
		return err
	}
	out, err := h.svc.List(c.Context(), who, db.ListV1{
		Bucket: bucket, Prefix: body.Prefix, Limit: body.Limit, Offset: body.Offset,
		SortColumn: body.SortBy.Column, SortDesc: body.SortBy.Order == "desc", Search: body.Search,
	})
	if err != nil {
		return err
	}
	return c.JSON(out)
}

func (h *handlers) listV2(c fiber.Ctx) error {
	who, err := h.caller(c)
	if err != nil {
		return err
	}
	bucket, err := param(c, "bucket")
	if err != nil {
		return err
	}
	var body struct {
		Prefix        string  `json:"prefix"`
		Limit         *int    `json:"limit"`
		Cursor        string  `json:"cursor"`
		WithDelimiter bool    `json:"with_delimiter"`
		SortBy        *sortBy `json:"sortBy"`
	}
	if err := readJSON(c, &body); err != nil {
		return err
	}
	q := objects.V2Query{Bucket: bucket, Prefix: body.Prefix, Cursor: body.Cursor, Delimiter: body.WithDelimiter}
	if body.Limit != nil {
		// Upstream's body schema: an absent limit takes the default, a
		// given one must be at least 1.
		if *body.Limit < 1 {
			return invalidBody("body/limit must be >= 1")
		}
		q.Limit = *body.Limit
	}
	if body.SortBy != nil {
		if err := body.SortBy.checkV2(); err != nil {
			return err
		}
		q.SortColumn, q.SortOrder = body.SortBy.Column, body.SortBy.Order
	}
	out, err := h.svc.ListV2(c.Context(), who, q)
	if err != nil {
		return err
	}
	return c.JSON(out)
}

type transferBody struct {
	BucketID          string `json:"bucketId"`
	SourceKey         string `json:"sourceKey"`
	DestinationKey    string `json:"destinationKey"`
	DestinationBucket string `json:"destinationBucket"`
	// Copy only (upstream's copyObject body).
	Metadata *struct {
		CacheControl *string `json:"cacheControl"`
		Mimetype     *string `json:"mimetype"`
	} `json:"metadata"`
	CopyMetadata *bool `json:"copyMetadata"`
}

func (h *handlers) transfer(c fiber.Ctx) (db.Caller, objects.Transfer, error) {
	who, err := h.caller(c)
	if err != nil {
		return who, objects.Transfer{}, err
	}
	var b transferBody
	if err := readJSON(c, &b); err != nil {
		return who, objects.Transfer{}, err
	}
	if b.BucketID == "" {
		return who, objects.Transfer{}, storageerr.MissingParameter("bucketId")
	}
	t := objects.Transfer{Bucket: b.BucketID, From: b.SourceKey, ToBucket: b.DestinationBucket, To: b.DestinationKey,
		KeepMetadata: b.CopyMetadata == nil || *b.CopyMetadata}
	if b.Metadata != nil {
		t.CacheControl, t.Mimetype = b.Metadata.CacheControl, b.Metadata.Mimetype
	}
	if m := c.Get("x-metadata"); m != "" {
		dec, err := base64.StdEncoding.DecodeString(m)
		if err != nil || !json.Valid(dec) {
			return who, t, storageerr.InvalidParameter("x-metadata", "")
		}
		t.UserMetadata = dec
	}
	return who, t, nil
}

func (h *handlers) move(c fiber.Ctx) error {
	who, t, err := h.transfer(c)
	if err != nil {
		return err
	}
	o, err := h.svc.Move(c.Context(), who, t)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"message": "Successfully moved", "Id": o.ID, "Key": o.BucketID + "/" + o.Name})
}

func (h *handlers) copy(c fiber.Ctx) error {
	who, t, err := h.transfer(c)
	if err != nil {
		return err
	}
	t.Upsert = c.Get("x-upsert") == "true"
	o, err := h.svc.Copy(c.Context(), who, t)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"Id": o.ID, "Key": o.BucketID + "/" + o.Name, "name": o.Name, "bucket_id": o.BucketID,
		"owner": o.Owner, "owner_id": o.OwnerID, "version": o.Version, "metadata": json.RawMessage(orNull(o.Metadata)),
		"created_at": o.CreatedAt, "updated_at": o.UpdatedAt, "last_accessed_at": o.LastAccessedAt})
}

func orNull(b []byte) []byte {
	if len(b) == 0 {
		return []byte("null")
	}
	return b
}

func (h *handlers) signURL(c fiber.Ctx) error {
	who, err := h.caller(c)
	if err != nil {
		return err
	}
	bucket, name, err := objectPath(c)
	if err != nil {
		return err
	}
	var body struct {
		ExpiresIn json.Number    `json:"expiresIn"`
		Transform map[string]any `json:"transform"`
	}
	if err := readJSON(c, &body); err != nil {
		return err
	}
	exp, _ := body.ExpiresIn.Float64()
	transformations, format, err := h.signTransform(body.Transform)
	if err != nil {
		return err
	}
	var u string
	if transformations != "" {
		u, err = h.svc.SignRenderURL(c.Context(), who, bucket, name, int64(exp), transformations, format)
	} else {
		u, err = h.svc.SignURL(c.Context(), who, bucket, name, int64(exp))
	}
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"signedURL": u})
}

func (h *handlers) signURLs(c fiber.Ctx) error {
	who, err := h.caller(c)
	if err != nil {
		return err
	}
	bucket, err := param(c, "bucket")
	if err != nil {
		return err
	}
	var body struct {
		ExpiresIn json.Number `json:"expiresIn"`
		Paths     []string    `json:"paths"`
	}
	if err := readJSON(c, &body); err != nil {
		return err
	}
	exp, _ := body.ExpiresIn.Float64()
	out, err := h.svc.SignURLs(c.Context(), who, bucket, body.Paths, int64(exp))
	if err != nil {
		return err
	}
	return c.JSON(out)
}

func (h *handlers) signUploadURL(c fiber.Ctx) error {
	who, err := h.caller(c)
	if err != nil {
		return err
	}
	bucket, name, err := objectPath(c)
	if err != nil {
		return err
	}
	u, tok, err := h.svc.SignUploadURL(c.Context(), who, bucket, name, c.Get("x-upsert") == "true")
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"url": u, "token": tok})
}
