package webui

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed static
var static embed.FS

// ContentSecurityPolicy is the policy of every response of Handler: the page's own origin only
// (which includes its WebSocket), no inline script or style, no plug-ins, no framing.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// file is one embedded file, ready to serve: as it is, and compressed with gzip when that is
// smaller (text: the scripts shrink to about a third).
type file struct {
	body        []byte
	gz          []byte // nil when compressing does not pay
	contentType string
	etag        string
}

// site answers requests for the embedded files.
type site struct {
	files map[string]file
}

// Handler returns the handler of the web page and its files, to mount at "/": "/" is the page,
// "/app.js", "/style.css" and the like its files; any other path is 404. It answers GET and HEAD
// only.
func Handler() http.Handler {
	s := &site{files: map[string]file{}}
	root, err := fs.Sub(static, "static")
	if err != nil {
		panic("webui: " + err.Error()) // the embedded tree is fixed at build time
	}
	err = fs.WalkDir(root, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(root, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		ct := mime.TypeByExtension(path.Ext(name))
		if ct == "" {
			ct = http.DetectContentType(body)
		}
		s.files["/"+name] = file{body: body, gz: compress(body), contentType: ct, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
		return nil
	})
	if err != nil {
		panic("webui: " + err.Error())
	}
	s.files["/"] = s.files["/index.html"]
	delete(s.files, "/index.html")
	return s
}

// ServeHTTP serves one embedded file with the security headers.
func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	f, ok := s.files[r.URL.Path]
	if !ok || strings.Contains(r.URL.Path, "..") {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	h.Set("Content-Type", f.contentType)
	h.Set("Cache-Control", "no-cache")
	body, etag := f.body, f.etag
	if f.gz != nil {
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			h.Set("Content-Encoding", "gzip")
			body, etag = f.gz, strings.TrimSuffix(f.etag, `"`)+`-gz"`
		}
	}
	h.Set("ETag", etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// compress gives body compressed with gzip, or nil when that saves less than a tenth.
func compress(body []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // a valid level: no error
	_, _ = zw.Write(body)                                    // into memory: no error
	_ = zw.Close()
	if buf.Len() > len(body)*9/10 {
		return nil
	}
	return buf.Bytes()
}

// acceptsGzip tells whether an Accept-Encoding header allows gzip (not with q=0).
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") && strings.TrimSpace(name) != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}
