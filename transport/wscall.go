package transport

import (
	"context"
	"github.com/fnapi/fnapi/internal/bufpool"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/internal/calllink"
	"github.com/fnapi/fnapi/internal/jsonobject"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/transport/internal/wsmessage"
	"go.uber.org/zap"
)

// newCall makes the registry call of a message: with the handshake's tokens, or, when the
// message's args carry a token (_session, _key), with those alone for this call.
func (wc *wsConn) newCall(f *registry.Func, m wsmessage.Call) (*registry.Call, error) {
	c := &registry.Call{Func: f, Version: wc.v, Args: m.Args, Credentials: wc.creds}
	facts := calllink.Of(c)
	*facts = calllink.Facts{
		Transport:  "ws",
		ID:         m.ID,
		RemoteAddr: wc.remote,
		Header:     wc.header,
		Meta:       m.Meta,
		Names:      &wc.h.names,
	}
	if _, ok := m.Args[argSession]; ok || m.Args[argKey] != nil {
		c.Credentials.Session, c.Credentials.SessionFromCookie, c.Credentials.Key = "", false, ""
		if err := takeTokens(m.Args, &c.Credentials); err != nil {
			return nil, err
		}
	}
	if m.Stream {
		facts.Sink = &wsSink{wc: wc, id: m.ID, fn: f.Name, plain: f.NoStore}
	}
	return c, nil
}

// callContext returns the context of a call: below the connection's, with the call's deadline
// (Config.CallTimeout, or StreamTimeout for a stream), and the connection for CancelCall.
func (wc *wsConn) callContext(c *registry.Call) (context.Context, context.CancelFunc) {
	timeout := wc.h.cfg.CallTimeout
	if c.Sink() != nil {
		timeout = wc.h.cfg.StreamTimeout
	}
	return newCallCtx(wc.ctx, timeout, wc)
}

// run runs one call and writes its answer: a result, or the stream's end, or an error. A call
// cancelled by cancel(id) answers CANCELLED, whatever its function returned.
func (wc *wsConn) run(ctx context.Context, c *registry.Call, run *wsRunning) {
	res, err := wc.h.call(registry.WithCall(ctx, c), c)
	switch {
	case run == nil:
	case run.cancelled.Load():
		err = apierr.New(apierr.Cancelled)
	case run.shutdown.Load():
		err = errShuttingDown()
	}
	b := bufpool.Get()
	switch {
	case err != nil:
		appendError(b, c.ID(), apierr.From(err))
	case c.Sink() != nil:
		appendEnd(b, c.ID())
	default:
		appendID(b, c.ID())
		b.WriteString(`"type":"result","result":`)
		if err := jsonobject.Encode(b, res); err != nil {
			b.Reset()
			appendError(b, c.ID(), apierr.New(apierr.Internal))
			wc.h.cfg.Logger.Error("result does not encode as JSON", zap.String("function", c.Func.Name), zap.Error(err))
		} else {
			b.WriteByte('}')
		}
	}
	if run != nil {
		wc.release(c.ID())
	}
	_ = wc.out.send(b, c.Func.NoStore)
}

// wsSink is the stream.Sink of a streaming call over WebSocket.
type wsSink struct {
	wc    *wsConn
	id    string
	fn    string
	plain bool // never compressed: the function is NoStore
}

// Send writes one chunk message with the call's id. It blocks while the client is slow to read,
// at most the write timeout, and fails once ctx is done or the connection closed.
func (k *wsSink) Send(ctx context.Context, chunk any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b := bufpool.Get()
	if err := appendChunk(b, k.id, chunk); err != nil {
		bufpool.Put(b)
		return apierr.New(apierr.Internal).Wrap(err)
	}
	if err := k.wc.out.send(b, k.plain); err != nil {
		return err
	}
	if m := k.wc.h.cfg.Metrics; m != nil {
		m.chunk(k.fn)
	}
	return nil
}
