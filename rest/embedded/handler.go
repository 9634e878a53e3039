package embedded

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"

	"github.com/kejanest/kejanest/platform/fiberserve"
	"github.com/kejanest/kejanest/rest/pgrst"
	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
)

// Handler serves the service over net/http, answering as cmd/rest's Fiber
// app does (internal/httpapi): /live, /health and /ready, and every other
// path through the pipeline, with errors in PostgREST's shape. r.URL.Path
// is the path after the public prefix (/properties, /rpc/fn), as the
// gateway forwards it.
func (s *Service) Handler() http.Handler {
	return &handler{pipeline: s.Pipeline, ready: s.Ready, log: s.log, bodyLimit: fiberserve.DefaultBodyLimit}
}

type handler struct {
	pipeline  *pgrst.Handler
	ready     func(context.Context) error
	log       *slog.Logger
	bodyLimit int64
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(fiberserve.HeaderRequestID)
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			h.log.Error("panic while serving a request", "request_id", id, "method", r.Method, "path", r.URL.Path,
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			h.writeError(w, r, fmt.Errorf("%w: %v", fiberserve.ErrPanic, p), id)
		}
	}()
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		switch r.URL.Path {
		case "/live", "/health":
			w.WriteHeader(http.StatusOK)
			return
		case "/ready":
			status := http.StatusOK
			if h.ready != nil && h.ready(r.Context()) != nil {
				status = http.StatusServiceUnavailable
			}
			w.WriteHeader(status)
			return
		}
	}

	req, err := h.request(r)
	if err != nil {
		h.writeError(w, r, err, id)
		return
	}
	// Not cancelled when the client goes away, as under Fiber (whose
	// context never is): pgx answers a cancelled query by closing the
	// connection, and a search box that aborts each keystroke's request
	// would churn the pool. The request timeout still bounds it.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), fiberserve.DefaultRequestTimeout)
	defer cancel()
	resp, err := h.pipeline.Serve(ctx, req)
	if err != nil {
		h.writeError(w, r, err, id)
		return
	}
	hdr := w.Header()
	setHeaders(hdr, resp.Headers)
	if len(resp.Body) > 0 {
		hdr["Content-Length"] = []string{strconv.Itoa(len(resp.Body))}
	}
	w.WriteHeader(resp.Status)
	if len(resp.Body) > 0 && r.Method != http.MethodHead {
		_, _ = w.Write(resp.Body)
	}
}

// request copies r into the pipeline's framework-free form. net/http has
// already decoded the path and keeps Host out of the header map, so it is
// added back, as Fiber lists it.
func (h *handler) request(r *http.Request) (*pgrst.Request, error) {
	n := 1
	for _, vs := range r.Header {
		n += len(vs)
	}
	req := &pgrst.Request{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Headers: make([][2]string, 0, n)}
	if r.Host != "" {
		req.Headers = append(req.Headers, [2]string{"Host", r.Host})
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			req.Headers = append(req.Headers, [2]string{k, v})
		}
	}
	if r.Body == nil || r.Body == http.NoBody {
		return req, nil
	}
	if r.ContentLength > h.bodyLimit {
		return nil, pgrsterr.InvalidBody(http.StatusRequestEntityTooLarge, "Request body too large")
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, h.bodyLimit))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, pgrsterr.InvalidBody(http.StatusRequestEntityTooLarge, "Request body too large")
	case err != nil:
		return nil, pgrsterr.InvalidBody(http.StatusBadRequest, "Could not read the request body")
	}
	req.Body = body
	return req, nil
}

// writeError is the single writer of error responses, as httpapi's
// errorHandler is for the Fiber app.
func (h *handler) writeError(w http.ResponseWriter, r *http.Request, err error, id string) {
	status, body, expected := pgrsterr.Render(err, id)
	if !expected {
		h.log.Error("unexpected failure", "request_id", id, "method", r.Method, "path", r.URL.Path, "error", err.Error())
	}
	hdr := w.Header()
	var pe *pgrsterr.Error
	if errors.As(err, &pe) {
		setHeaders(hdr, pe.Headers)
	}
	hdr["Content-Type"] = []string{pgrsterr.ContentType}
	hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// setHeaders replaces each header's value, as Fiber's c.Set does, except
// that cookies add up (Fiber keeps one Set-Cookie per cookie name). The
// values share one backing array, as http.Header.Clone's do: one
// allocation for the lot instead of one per header. Each value's slice is
// capped at its length, so appending to one (the gateway adds to Vary)
// copies it rather than overwriting the next.
func setHeaders(h http.Header, headers [][2]string) {
	vals := make([]string, len(headers))
	for i, kv := range headers {
		k := http.CanonicalHeaderKey(kv[0])
		if k == "Set-Cookie" {
			h[k] = append(h[k], kv[1])
			continue
		}
		vals[i] = kv[1]
		h[k] = vals[i : i+1 : i+1]
	}
}
