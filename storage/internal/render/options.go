// Package render transforms stored images as Supabase Storage's
// /render/image routes do (imgproxy behind supabase/storage
// src/storage/renderer/image.ts): resize (cover, contain, fill), quality,
// and the output format (WebP when the client accepts it, else the
// source's). It knows nothing of HTTP servers or the database: it parses
// options, and turns the bytes of one image into the bytes of another
// within the service's image memory budget and a bounded number of
// workers.
package render

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/kejanest/kejanest/storage/internal/storageerr"
)

// Resize modes (TransformOptions.resize). Cover is imgproxy's "fill",
// Contain its "fit", Fill its "force".
const (
	ResizeCover   = "cover"
	ResizeContain = "contain"
	ResizeFill    = "fill"
)

// Format values. Empty is automatic: WebP when the client's Accept allows
// it, else the source's format.
const (
	FormatOrigin = "origin"
	FormatAVIF   = "avif"
)

// Quality bounds and default, as Supabase documents them.
const (
	MinQuality     = 20
	MaxQuality     = 100
	DefaultQuality = 80
)

// Options are the transformations of one request. Zero values are unset:
// a zero Width or Height is computed from the source's aspect ratio, a
// zero Quality is DefaultQuality, an empty Resize is cover.
type Options struct {
	Width, Height int
	Resize        string
	Quality       int
	Format        string
}

// Resizes reports whether o changes the image's dimensions.
func (o Options) Resizes() bool { return o.Width > 0 || o.Height > 0 }

// Limits clamp the requested dimensions
// (IMAGE_TRANSFORMATION_LIMIT_MIN_SIZE, IMAGE_TRANSFORMATION_LIMIT_MAX_SIZE),
// as upstream's applyTransformation does: out of range is clamped, not
// refused.
type Limits struct {
	MinSize, MaxSize int
}

// Clamp returns o with its set dimensions brought within l.
func (o Options) Clamp(l Limits) Options {
	if o.Width > 0 {
		o.Width = min(max(o.Width, l.MinSize), l.MaxSize)
	}
	if o.Height > 0 {
		o.Height = min(max(o.Height, l.MinSize), l.MaxSize)
	}
	return o
}

// ParseQuery reads the options of a /render/image/public or /authenticated
// request. get returns the values of one query parameter. The checks and
// their messages are those of upstream's transformationOptionsSchema as
// Fastify's validator reports them ("querystring/width must be integer").
func ParseQuery(get func(name string) []string) (Options, error) {
	return parse("querystring", func(name string) (string, bool, error) {
		v := get(name)
		switch len(v) {
		case 0:
			return "", false, nil
		case 1:
			return v[0], true, nil
		}
		return "", true, errMultiple
	})
}

// errMultiple marks a parameter given more than once (Fastify's validator
// turns it into an array) or a JSON value of the wrong kind: no option
// accepts either.
var errMultiple = errors.New("not a single value")

// ParseBody reads the transform object of POST /object/sign (its values
// already JSON-decoded); the messages name "body/transform/…".
func ParseBody(t map[string]any) (Options, error) {
	return parse("body/transform", func(name string) (string, bool, error) {
		v, ok := t[name]
		if !ok || v == nil {
			return "", false, nil
		}
		switch x := v.(type) {
		case string:
			return x, true, nil
		case float64:
			return strconv.FormatFloat(x, 'f', -1, 64), true, nil
		case bool:
			return strconv.FormatBool(x), true, nil
		}
		return "", true, errMultiple
	})
}

// parse checks each property in the schema's order and reports the first
// failure, as ajv does without allErrors.
func parse(where string, get func(string) (string, bool, error)) (Options, error) {
	var o Options
	fail := func(name, msg string) error {
		return Invalid(where + "/" + name + " " + msg)
	}
	integer := func(name string, minV, maxV int) (int, error) {
		s, ok, err := get(name)
		if !ok {
			return 0, nil
		}
		s = strings.TrimSpace(s)
		f, ferr := strconv.ParseFloat(s, 64)
		if err != nil || ferr != nil || s == "" || f != math.Trunc(f) || math.IsInf(f, 0) {
			return 0, fail(name, "must be integer")
		}
		n := int(max(min(f, math.MaxInt32), math.MinInt32))
		if n < minV {
			return 0, fail(name, "must be >= "+strconv.Itoa(minV))
		}
		if maxV > 0 && n > maxV {
			return 0, fail(name, "must be <= "+strconv.Itoa(maxV))
		}
		return n, nil
	}
	enum := func(name string, allowed ...string) (string, error) {
		s, ok, err := get(name)
		if !ok {
			return "", nil
		}
		for _, a := range allowed {
			if err == nil && s == a {
				return s, nil
			}
		}
		return "", fail(name, "must be equal to one of the allowed values")
	}
	var err error
	if o.Height, err = integer("height", 0, 0); err != nil {
		return Options{}, err
	}
	if o.Width, err = integer("width", 0, 0); err != nil {
		return Options{}, err
	}
	if o.Resize, err = enum("resize", ResizeCover, ResizeContain, ResizeFill); err != nil {
		return Options{}, err
	}
	if o.Format, err = enum("format", FormatOrigin, FormatAVIF); err != nil {
		return Options{}, err
	}
	if o.Quality, err = integer("quality", MinQuality, MaxQuality); err != nil {
		return Options{}, err
	}
	return o, nil
}

// Invalid is the error of a request that fails validation: Fastify's
// answer, HTTP 400 with the validator's message.
func Invalid(message string) *storageerr.Error {
	e := storageerr.InvalidRequest(400, message)
	e.ErrorText = "Error"
	return e
}

// TokenString is o as a signed URL's "transformations" claim, in
// upstream's applyTransformation(options, keepOriginal) order:
// "height:200,width:300,resize:cover,quality:70". The format travels in
// its own claim.
func (o Options) TokenString() string {
	var parts []string
	if o.Height > 0 {
		parts = append(parts, "height:"+strconv.Itoa(o.Height))
	}
	if o.Width > 0 {
		parts = append(parts, "width:"+strconv.Itoa(o.Width))
	}
	if o.Resizes() && o.Resize != "" {
		parts = append(parts, "resize:"+o.Resize)
	}
	if o.Quality > 0 {
		parts = append(parts, "quality:"+strconv.Itoa(o.Quality))
	}
	return strings.Join(parts, ",")
}

// ParseTokenString reads a signed URL's "transformations" claim as
// upstream's setTransformationsFromString does: unknown names are ignored,
// a number that does not parse is unset, an unknown resize mode is cover.
// The token was signed by this service, but tokens outlive deployments,
// so nothing in it is trusted beyond its shape; the result is clamped and
// its quality bounded like a query's.
func ParseTokenString(s string) Options {
	var o Options
	num := func(v string) int {
		n, err := strconv.Atoi(leadingDigits(v))
		if err != nil || n < 0 {
			return 0
		}
		return n
	}
	for _, p := range strings.Split(s, ",") {
		name, value, _ := strings.Cut(p, ":")
		switch name {
		case "height":
			o.Height = num(value)
		case "width":
			o.Width = num(value)
		case "resize":
			o.Resize = value
		case "format":
			o.Format = value
		case "quality":
			o.Quality = num(value)
		}
	}
	switch o.Resize {
	case ResizeCover, ResizeContain, ResizeFill:
	default:
		o.Resize = ""
	}
	if o.Format != FormatOrigin && o.Format != FormatAVIF {
		o.Format = ""
	}
	if o.Quality != 0 {
		o.Quality = min(max(o.Quality, MinQuality), MaxQuality)
	}
	return o
}

// leadingDigits is the run of digits parseInt reads from the start of s
// ("200px" → "200").
func leadingDigits(s string) string {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}
