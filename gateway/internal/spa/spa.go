// Package spa serves the built single-page frontend: files that exist, and
// index.html for every other route so client-side routing works on reload.
package spa

import (
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Cache policies. Vite puts content-hashed files under /assets/, so they
// never change; everything else must be revalidated so a deploy is seen.
const (
	cacheImmutable  = "public, max-age=31536000, immutable"
	cacheRevalidate = "no-cache"
)

// notBuilt is the page shown until the frontend has been built.
const notBuilt = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Frontend not built</title></head>
<body><h1>The frontend is not built</h1>
<p>The gateway found no index.html in its FRONTEND_DIR. Run <code>make run</code>, which builds the frontend, and reload.</p>
</body></html>
`

// Handler serves files from one directory. Paths are resolved with os.Root,
// so neither ".." nor a symlink can reach outside it.
type Handler struct {
	dir string
}

// New serves dir. The directory need not exist yet: it is opened on each
// request, so a frontend built (or rebuilt, which replaces dist/) after the
// gateway started is picked up.
func New(dir string) *Handler { return &Handler{dir: dir} }

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	root, err := os.OpenRoot(h.dir)
	if err != nil {
		h.notBuilt(w)
		return
	}
	defer root.Close()

	// Clean against "/" so the name can never climb: "/../x" becomes "/x".
	name := path.Clean("/" + r.URL.Path)
	isAsset := strings.HasPrefix(name, "/assets/")
	if rel := strings.TrimPrefix(name, "/"); rel != "" && !hidden(rel) {
		if h.serveFile(w, r, root, rel, isAsset) {
			return
		}
	}
	if isAsset {
		// A missing hashed asset is a stale or wrong URL; answering it
		// with index.html would hand a script tag an HTML page.
		http.NotFound(w, r)
		return
	}
	if !h.serveFile(w, r, root, "index.html", false) {
		h.notBuilt(w)
	}
}

// serveFile serves rel if it is a regular file and reports whether it did.
func (h *Handler) serveFile(w http.ResponseWriter, r *http.Request, root *os.Root, rel string, immutable bool) bool {
	f, st := openRegular(root, rel)
	if f == nil {
		return false
	}
	defer f.Close()
	if immutable {
		w.Header().Set("Cache-Control", cacheImmutable)
	} else {
		w.Header().Set("Cache-Control", cacheRevalidate)
	}
	body := io.ReadSeeker(f)
	if ctype := mime.TypeByExtension(path.Ext(rel)); ctype != "" {
		if enc := precompressed(w, r, root, rel); enc != nil {
			defer enc.Close()
			// The type is the original file's; ServeContent must not sniff
			// the compressed bytes.
			w.Header().Set("Content-Type", ctype)
			body = enc
		}
	}
	// ServeContent handles HEAD, ranges (of the representation sent),
	// conditional requests and the content type from the extension. The
	// original's time is used so both representations validate alike.
	http.ServeContent(w, r, st.Name(), st.ModTime(), body)
	return true
}

// precompressed looks for a sibling of rel that the build compressed and
// the client accepts. When a sibling exists it sets Vary (whether or not
// this client gets it, so caches keep the representations apart); when the
// client accepts one it sets Content-Encoding and returns it open.
func precompressed(w http.ResponseWriter, r *http.Request, root *os.Root, rel string) *os.File {
	ae := r.Header.Get("Accept-Encoding")
	varied := false
	for _, e := range encodings {
		f, _ := openRegular(root, rel+e.suffix)
		if f == nil {
			continue
		}
		if !varied {
			w.Header().Add("Vary", "Accept-Encoding")
			varied = true
		}
		if accepts(ae, e.coding) {
			w.Header().Set("Content-Encoding", e.coding)
			return f
		}
		_ = f.Close()
	}
	return nil
}

// openRegular opens rel under root, with its FileInfo, if it is a regular
// file; else it returns nil.
func openRegular(root *os.Root, rel string) (*os.File, os.FileInfo) {
	f, err := root.Open(rel)
	if err != nil {
		return nil, nil
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, nil
	}
	return f, st
}

func (h *Handler) notBuilt(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write([]byte(notBuilt))
}

// hidden reports whether any segment of rel starts with a dot (.env,
// .git/...): never served, even if the build left one behind.
func hidden(rel string) bool {
	for seg := range strings.SplitSeq(rel, "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

// IndexExists reports whether dir holds an index.html; main logs a hint at
// start when it does not.
func IndexExists(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "index.html"))
	return err == nil && st.Mode().IsRegular()
}
