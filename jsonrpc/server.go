package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/internal/calllink"
	"github.com/fnapi/fnapi/internal/jsonobject"
	"github.com/fnapi/fnapi/transport"
	"go.uber.org/zap"
)

// Options configures the JSON-RPC endpoint. The zero value is usable: each field names its
// default.
type Options struct {
	// MaxBatch is the most requests a batch may hold; a larger batch is refused whole with
	// -32600 and data {"limit": MaxBatch}. Default: 100.
	MaxBatch int
	// MaxBytes is the largest body, one request or a batch; past it the answer is HTTP 413
	// with REQUEST-TOO-LARGE. Default: 1 MiB.
	MaxBytes int64
	// BatchTimeout is the deadline of a whole batch, from when its body is read: a call still
	// running then ends with TIMEOUT (its own deadline is the sooner of the call's and the
	// batch's), and the calls after it are answered TIMEOUT without running. A single request
	// has its call's deadline only. Default: 60 s, the default call deadline
	// (fnapi.WithCallTimeout).
	BatchTimeout time.Duration
}

// Server is the JSON-RPC 2.0 endpoint: set it in transport.Config.Endpoints under "jsonrpc"
// (fnapi.WithJSONRPC does). It is safe for concurrent use.
type Server struct{ opts Options }

// New returns the endpoint.
func New(opts Options) *Server {
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 100
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 1 << 20
	}
	if opts.BatchTimeout <= 0 {
		opts.BatchTimeout = 60 * time.Second
	}
	return &Server{opts: opts}
}

// ServeEndpoint answers one POST of a request or a batch.
func (s *Server) ServeEndpoint(w http.ResponseWriter, r *http.Request, x *transport.Exchange) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeHTTPError(w, apierr.New(apierr.MethodNotAllowed, "allowed", []string{"POST"}))
		return
	}
	if x.CrossSite() {
		writeHTTPError(w, apierr.New(apierr.OriginNotAllowed, "origin", r.Header.Get("Origin")))
		return
	}
	body, err := x.ReadBody(s.opts.MaxBytes)
	if err != nil {
		writeHTTPError(w, err)
		return
	}
	reqs, errs, batch, perr := Parse(body, s.opts.MaxBatch)
	if perr != nil {
		Write(w, Response{JSONRPC: Version, ID: null, Error: perr})
		return
	}
	ctx := r.Context()
	if batch { // one deadline for the whole batch, not one per call
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.opts.BatchTimeout)
		defer cancel()
	}
	out := make([]Response, 0, len(reqs))
	for i := range reqs {
		var res Response
		switch {
		case errs[i] != nil:
			out = append(out, Response{JSONRPC: Version, ID: reqs[i].ID, Error: errs[i]})
			continue
		case ended(ctx) != nil:
			// The client went away (CANCELLED), or the batch is past its deadline (TIMEOUT):
			// the rest is answered, if an answer can still be written, without running.
			res = Response{JSONRPC: Version, ID: reqs[i].ID, Error: FromAPI(ended(ctx))}
		default:
			res = s.call(ctx, x, &reqs[i])
		}
		if !reqs[i].IsNotification() {
			out = append(out, res)
		}
	}
	switch {
	case len(out) == 0:
		w.WriteHeader(http.StatusAccepted)
	case batch:
		Write(w, out)
	default:
		Write(w, out[0])
	}
}

// call runs one request's function and returns its answer.
func (s *Server) call(ctx context.Context, x *transport.Exchange, req *Request) Response {
	resp := Response{JSONRPC: Version, ID: req.ID}
	f := x.Lookup(req.Method)
	if f == nil {
		resp.Error = FromAPI(apierr.New(apierr.UnknownFunction, "path", req.Method))
		return resp
	}
	args, err := Args(req.Params)
	if err != nil {
		resp.Error = err
		return resp
	}
	c, cerr := x.NewCall(f, args)
	if cerr != nil {
		resp.Error = FromAPI(cerr)
		return resp
	}
	calllink.Of(c).ID = string(bytes.Trim(req.ID, `"`))
	v, cerr := x.Call(ctx, c)
	if cerr != nil {
		resp.Error = FromAPI(cerr)
		return resp
	}
	b, mErr := Marshal(v)
	if mErr != nil {
		x.Logger().Error("result does not encode as JSON", zap.String("function", f.Name), zap.Error(mErr))
		resp.Error = FromAPI(apierr.New(apierr.Internal))
		return resp
	}
	resp.Result = b
	return resp
}

// Args splits named params into arguments; positional params are -32602.
func Args(params json.RawMessage) (map[string]json.RawMessage, *Error) {
	p := bytes.TrimSpace(params)
	if len(p) == 0 || string(p) == "null" {
		return nil, nil
	}
	if p[0] != '{' {
		return nil, FromAPI(apierr.New(apierr.InvalidArgument, "reason", "params must be an object of named arguments"))
	}
	args := make(map[string]json.RawMessage)
	if !jsonobject.Read(p, args, false) {
		return nil, FromAPI(apierr.New(apierr.InvalidJSON, "reason", "params is not a JSON object"))
	}
	return args, nil
}

// Marshal encodes v as JSON without HTML escaping; nil is null.
func Marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Write answers v, a Response, a []Response or any JSON value, as a JSON body with status 200.
func Write(w http.ResponseWriter, v any) {
	var b []byte
	var err error
	switch t := v.(type) {
	case Response:
		b, err = t.AppendJSON(make([]byte, 0, len(t.ID)+len(t.Result)+40)) // one allocation
	case []Response:
		b = append(b, '[')
		for i := range t {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = t[i].AppendJSON(b); err != nil {
				break
			}
		}
		b = append(b, ']')
	default:
		b, err = Marshal(v)
	}
	if err != nil {
		b, _ = Response{JSONRPC: Version, ID: null, Error: NewError(CodeInternalError, "internal error")}.AppendJSON(nil)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// AppendJSON appends r as JSON to b. The id and a result are written as they are (they are
// valid JSON: the id as it was read, the result as Marshal made it), without the second
// encoding encoding/json gives a json.RawMessage.
func (r Response) AppendJSON(b []byte) ([]byte, error) {
	id := r.ID
	if id == nil {
		id = null
	}
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	if r.Error != nil {
		e, err := Marshal(r.Error)
		if err != nil {
			return b, err
		}
		b = append(b, `,"error":`...)
		b = append(append(b, e...), '}')
		return b, nil
	}
	result := r.Result
	if result == nil {
		result = null
	}
	b = append(b, `,"result":`...)
	b = append(append(b, result...), '}')
	return b, nil
}

// writeHTTPError answers an error of the HTTP exchange itself (a method, a body too large) as
// the HTTP binding does, with its status.
func writeHTTPError(w http.ResponseWriter, err error) {
	e := apierr.From(err)
	b, _ := json.Marshal(e)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status())
	_, _ = w.Write(b)
}

// ended is ctx's error, or DeadlineExceeded once its deadline passed though its timer has not
// fired yet: the call before may have ended on a timer of its own set to the same deadline (the
// transport's), and the next must not start.
func ended(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}
