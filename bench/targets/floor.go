package targets

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
)

// floorHandler is the hand-written net/http handler: the JSON work any framework must do for
// the echo call, and nothing else.
func floorHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /echo", floorGET)
	mux.HandleFunc("POST /echo", floorPOST)
	return mux
}

type floorResult struct {
	Type   string                     `json:"type"`
	Result map[string]json.RawMessage `json:"result"`
}

// floorGET reads each query-string value as JSON, or as a string when it is not JSON.
func floorGET(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		floorError(w, http.StatusBadRequest, "INVALID-ARGUMENT")
		return
	}
	args := make(map[string]json.RawMessage, len(q))
	for k, v := range q {
		if json.Valid([]byte(v[0])) {
			args[k] = json.RawMessage(v[0])
		} else {
			args[k], _ = json.Marshal(v[0])
		}
	}
	floorWrite(w, args)
}

// floorPOST reads a JSON object of arguments from the body.
func floorPOST(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err != nil {
		floorError(w, http.StatusRequestEntityTooLarge, "REQUEST-TOO-LARGE")
		return
	}
	var args map[string]json.RawMessage
	if err := json.Unmarshal(body, &args); err != nil {
		floorError(w, http.StatusBadRequest, "INVALID-JSON")
		return
	}
	floorWrite(w, args)
}

func floorWrite(w http.ResponseWriter, args map[string]json.RawMessage) {
	b, err := json.Marshal(floorResult{"result", args})
	if err != nil {
		floorError(w, http.StatusInternalServerError, "INTERNAL-ERROR")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

func floorError(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(`{"type":"error","error":"` + code + `"}`))
}
