package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strings"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/stream"
)

// Client calls an fnapi server over HTTPS. It is safe for concurrent use.
type Client struct {
	root  string // the API's root URL, without a trailing slash
	base  string // root with the version segment of WithVersion, if any
	o     options
	reads *readCache // nil with WithReadCache(0)
}

// New returns a client for the API mounted at baseURL ("https://example.net/api").
func New(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("client: base URL %q: want https://host/path", baseURL)
	}
	o := newOptions(opts)
	root := strings.TrimSuffix(u.String(), "/")
	base := root
	if o.version != "" {
		base += "/" + url.PathEscape(o.version)
	}
	return &Client{root: root, base: base, o: o, reads: newReadCache(o.reads)}, nil
}

// post sends one call to base/path as a POST with the JSON object body, and the
// Idempotency-Key key when it is not empty.
func (c *Client) post(ctx context.Context, base, path string, body []byte, accept, key string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/"+path, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	req.Header = c.o.header()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	return c.do(req)
}

// get sends a conditional read to url, with If-None-Match etag when it is not empty.
func (c *Client) get(ctx context.Context, url, etag string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	req.Header = c.o.header()
	req.Header.Set("Accept", "application/json")
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	return c.do(req)
}

func (c *Client) do(req *http.Request) (*http.Response, error) {
	res, err := c.o.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	return res, nil
}

// at returns the URL root of version v: the client's own when v is "".
func (c *Client) at(v string) string {
	if v == "" {
		return c.base
	}
	return c.root + "/" + v
}

// Call calls fn with args and stores its result in out (any value [json.Unmarshal] takes; nil to
// drop it). An error answered by the server is an *apierr.Error.
func (c *Client) Call(ctx context.Context, fn string, args any, out any) error {
	return c.call(ctx, fn, "", args, out)
}

// call calls fn at version v (the client's own when ""), again as WithRetries says.
func (c *Client) call(ctx context.Context, fn, v string, args any, out any) error {
	return c.send(ctx, fn, v, args, out, false)
}

// callReadOnly calls fn, a function declared to change nothing, as a conditional read
// (reads.go).
func (c *Client) callReadOnly(ctx context.Context, fn, v string, args any, out any) error {
	return c.send(ctx, fn, v, args, out, c.reads != nil)
}

// send calls fn, as a conditional GET when get is set and the arguments fit in a URL.
func (c *Client) send(ctx context.Context, fn, v string, args any, out any, get bool) error {
	body, err := encodeArgs(args)
	if err != nil {
		return err
	}
	var key, u string
	if q, ok := readQuery(body); get && ok {
		u = c.at(v) + "/" + url.PathEscape(fn)
		if q != "" {
			u += "?" + q
		}
	} else if key = idempotencyKeyOf(ctx); key == "" && c.o.retries > 0 {
		key = newIdempotencyKey()
	}
	for attempt := 0; ; attempt++ {
		again, err := c.callOnce(ctx, fn, v, body, key, u, out)
		if again.after < 0 || attempt >= c.o.retries || ctx.Err() != nil {
			return err
		}
		if !pause(ctx, backoff(attempt, again.after)) {
			return err
		}
	}
}

// callOnce makes one attempt of a call: a POST, or a conditional GET of getURL when it is
// not empty; again says whether the attempt may be retried.
func (c *Client) callOnce(ctx context.Context, fn, v string, body []byte, key, getURL string, out any) (retry, error) {
	var res *http.Response
	var err error
	var etag string
	var keptBody []byte
	if getURL != "" {
		etag, keptBody = c.reads.get(getURL)
		res, err = c.get(ctx, getURL, etag)
	} else {
		res, err = c.post(ctx, c.at(v), url.PathEscape(fn), body, "application/json", key)
	}
	if err != nil {
		return retryOnError(ctx), err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, c.o.maxMsg))
	if err != nil {
		return retryOnError(ctx), fmt.Errorf("client: reading the answer: %w", err)
	}
	if getURL != "" {
		switch {
		case res.StatusCode == http.StatusNotModified && etag != "":
			b = keptBody // unchanged: the copy kept
		case res.StatusCode == http.StatusOK:
			c.reads.put(getURL, res.Header.Get("ETag"), b)
		}
	}
	if err := decodeAnswer(b, out); err != nil {
		if errors.Is(err, errNotJSON) {
			return retryOnStatus(res, false, false), fmt.Errorf("client: status %d: %w", res.StatusCode, err)
		}
		if ctx.Err() != nil {
			return noRetry, ctx.Err() // the server answered CANCELLED to our own cancellation
		}
		return retryOnStatus(res, true, errors.Is(err, apierr.Unavailable)), err
	}
	return noRetry, nil
}

// ErrStreamCut is returned by a stream that ended without an end or error message: the
// connection broke.
var ErrStreamCut = errors.New("client: the stream ended without its end message")

// Stream calls fn in streaming mode and returns its chunks, in order, as the server sends them.
// The sequence ends after the last chunk; a failure is yielded last, as a nil chunk and an
// error (an *apierr.Error when the server answered one). Stopping the iteration, or cancelling
// ctx, ends the call.
func (c *Client) Stream(ctx context.Context, fn string, args any) iter.Seq2[json.RawMessage, error] {
	return c.stream(ctx, fn, "", args)
}

// stream calls fn in streaming mode at version v (the client's own when "").
func (c *Client) stream(ctx context.Context, fn, v string, args any) iter.Seq2[json.RawMessage, error] {
	return func(yield func(json.RawMessage, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		body, err := encodeArgs(args)
		if err != nil {
			yield(nil, err)
			return
		}
		res, err := c.post(ctx, c.at(v), "stream/"+url.PathEscape(fn), body, stream.NDJSON, "")
		if err != nil {
			yield(nil, err)
			return
		}
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 0, 4096), int(c.o.maxMsg))
		for sc.Scan() {
			m, err := decodeMessage(sc.Bytes())
			if err != nil {
				yield(nil, err)
				return
			}
			switch m.Type {
			case "chunk":
				if !yield(m.Chunk, nil) {
					return
				}
			case "end":
				return
			case "error":
				if ctx.Err() != nil {
					yield(nil, ctx.Err()) // the server answered CANCELLED to our own cancellation
					return
				}
				yield(nil, m.err())
				return
			default:
				yield(nil, fmt.Errorf("client: unexpected %q message in a stream", m.Type))
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield(nil, fmt.Errorf("client: reading the stream: %w", err))
			return
		}
		if err := ctx.Err(); err != nil {
			yield(nil, err)
			return
		}
		yield(nil, ErrStreamCut)
	}
}
