package transport

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/fnapi/fnapi/apierr"
)

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuf() *bytes.Buffer {
	b := bufPool.Get().(*bytes.Buffer)
	b.Reset()
	return b
}

func putBuf(b *bytes.Buffer) {
	if b.Cap() <= 64<<10 { // let big buffers go, so the pool does not pin memory
		bufPool.Put(b)
	}
}

// appendResult appends the message {"type":"result","result":v} to b.
func appendResult(b *bytes.Buffer, v any) error {
	b.WriteString(`{"type":"result","result":`)
	if err := encode(b, v); err != nil {
		return err
	}
	b.WriteByte('}')
	return nil
}

// encode appends v as JSON to b, without the trailing newline of json.Encoder.
func encode(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1)
	return nil
}

func writeResult(w http.ResponseWriter, v any) {
	b := getBuf()
	defer putBuf(b)
	if err := appendResult(b, v); err != nil {
		writeError(w, apierr.New(apierr.Internal).Wrap(err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b.Bytes())
}

// errorJSON encodes e as a message; an attribute that cannot be encoded degrades to the bare code.
func errorJSON(e *apierr.Error) []byte {
	b, err := json.Marshal(e)
	if err != nil {
		b, _ = json.Marshal(apierr.New(e.Code))
	}
	return b
}

func writeError(w http.ResponseWriter, err error) {
	e := apierr.From(err)
	if e.Code == apierr.RateLimited {
		if s, ok := e.Attrs["retry_after"]; ok {
			b, _ := json.Marshal(s)
			w.Header().Set("Retry-After", string(b))
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status())
	_, _ = w.Write(errorJSON(e))
}
