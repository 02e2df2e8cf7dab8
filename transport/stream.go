package transport

import (
	"net/http"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/registry"
)

// serveStream answers a call in streaming mode.
func (h *Handler) serveStream(w http.ResponseWriter, r *http.Request, c *registry.Call) {
	_ = r
	writeError(w, apierr.New(apierr.UnknownFunction, "path", "stream/"+c.Func.Name))
}
