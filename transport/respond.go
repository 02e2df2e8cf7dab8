package transport

import (
	"bytes"
	"encoding/json"
	"github.com/fnapi/fnapi/internal/bufpool"
	"net/http"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/internal/jsonobject"
)

// appendResult appends the message {"type":"result","result":v} to b.
func appendResult(b *bytes.Buffer, v any) error {
	b.WriteString(`{"type":"result","result":`)
	if err := jsonobject.Encode(b, v); err != nil {
		return err
	}
	b.WriteByte('}')
	return nil
}

// writeResult answers a result message, gzipped when it is at least compressMin bytes long
// (compressMin 0: never; see compress.go); when v does not encode as JSON it answers
// INTERNAL-ERROR instead, and returns the encoding error for the log.
func writeResult(w http.ResponseWriter, v any, compressMin int) error {
	b := bufpool.Get()
	defer bufpool.Put(b)
	if err := appendResult(b, v); err != nil {
		writeError(w, apierr.New(apierr.Internal))
		return err
	}
	writeMessage(w, http.StatusOK, b.Bytes(), compressMin > 0 && b.Len() >= compressMin)
	return nil
}

// writeMessage answers status and the JSON message body, gzipped when gz is set.
func writeMessage(w http.ResponseWriter, status int, body []byte, gz bool) {
	w.Header()["Content-Type"] = jsonType
	if gz {
		writeGzip(w, status, body)
		return
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

var jsonType = []string{"application/json"}

// errorJSON encodes e as a message; an attribute that cannot be encoded degrades to the bare code.
func errorJSON(e *apierr.Error) []byte {
	b, err := json.Marshal(e)
	if err != nil {
		b, _ = json.Marshal(apierr.New(e.Declaration()))
	}
	return b
}

func writeError(w http.ResponseWriter, err error) {
	a := errorAnswer(err)
	writeAnswer(w, &a, 0)
}

// errorAnswer returns the answer of err.
func errorAnswer(err error) IdempotentAnswer {
	e := apierr.From(err)
	a := IdempotentAnswer{Status: e.Status(), Body: errorJSON(e)}
	if e.Code() == apierr.RateLimited.Code() {
		if s, ok := e.LookupAttr("retry_after"); ok {
			b, _ := json.Marshal(s)
			a.RetryAfter = string(b)
		}
	}
	return a
}

// writeAnswer answers a, gzipped when it is a result of at least compressMin bytes (0: never).
func writeAnswer(w http.ResponseWriter, a *IdempotentAnswer, compressMin int) {
	if a.RetryAfter != "" {
		w.Header().Set("Retry-After", a.RetryAfter)
	}
	writeMessage(w, a.Status, a.Body, a.Status == http.StatusOK && compressMin > 0 && len(a.Body) >= compressMin)
}
