package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

	"github.com/fnapi/fnapi/decl"
)

// Caller is a connection that typed calls go through: a *Client (HTTPS) or a *WSConn
// (WebSocket). Its methods are the package's own; use Call and Stream.
type Caller interface {
	call(ctx context.Context, fn, version string, args any, out any) error
	callReadOnly(ctx context.Context, fn, version string, args any, out any) error // of a decl.ReadOnly function
	stream(ctx context.Context, fn, version string, args any) iter.Seq2[json.RawMessage, error]
	options() *options
}

var (
	_ Caller = (*Client)(nil)
	_ Caller = (*WSConn)(nil)
)

// Call calls the function d declares with the arguments in and returns its result, decoded
// into d's result type. The compiler checks in and the result against the declaration.
// Cancelling ctx cancels the call (over a WebSocket, on the server too) and returns ctx's
// error. An error answered by the server is an *apierr.Error: test a declared code with
// errors.Is(err, declaration), or read its attributes with errors.As.
//
// The call goes to the API version of c (WithVersion, or the server's latest), or to the
// version d appeared in when c was made WithDeclaredVersions.
func Call[In, Out any](ctx context.Context, c Caller, d decl.Function[In, Out], in In) (Out, error) {
	var out Out
	var err error
	if d.ReadOnly() {
		err = c.callReadOnly(ctx, d.Name(), pinned(c, d.SinceText()), in, &out)
	} else {
		err = c.call(ctx, d.Name(), pinned(c, d.SinceText()), in, &out)
	}
	return out, err
}

// Stream calls the streaming function d declares with the arguments in, and returns its
// chunks, decoded into d's chunk type, in the order the server sends them. A failure is
// yielded last, as a zero chunk and an error, as in Call. Stopping the iteration, or cancelling
// ctx, ends the call. The version is chosen as for Call.
func Stream[In, Chunk any](ctx context.Context, c Caller, d decl.StreamFunction[In, Chunk], in In) iter.Seq2[Chunk, error] {
	return func(yield func(Chunk, error) bool) {
		for raw, err := range c.stream(ctx, d.Name(), pinned(c, d.SinceText()), in) {
			var chunk Chunk
			if err == nil {
				if derr := json.Unmarshal(raw, &chunk); derr != nil {
					err = fmt.Errorf("client: decoding a chunk of %s: %w", d.Name(), derr)
				}
			}
			if !yield(chunk, err) || err != nil {
				return
			}
		}
	}
}

// pinned returns since when c calls at declared versions, else "" (c's own version).
func pinned(c Caller, since string) string {
	if c.options().declared {
		return since
	}
	return ""
}

func (c *Client) options() *options { return &c.o }
func (c *WSConn) options() *options { return &c.versions.o }
