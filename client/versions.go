package client

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/fnapi/fnapi/version"
)

// versions holds a WSConn's connections to other API versions. A WebSocket serves the version
// of its URL (/api/1.1/ws), so a typed call pinned to another version (WithDeclaredVersions)
// goes over a connection of its own to that version, opened on first use with the same
// options and kept until the WSConn is closed.
type versions struct {
	url *url.URL // the URL dialled
	o   options
	own string // the URL's version segment; "" for the server's latest

	mu     sync.Mutex
	conns  map[string]*WSConn
	closed bool
}

// init records that the connection was dialled at u with o.
func (vs *versions) init(u *url.URL, o options) {
	vs.url, vs.o = u, o
	if root, ok := strings.CutSuffix(u.Path, "/ws"); ok {
		if _, last := splitLast(root); validVersion(last) {
			vs.own = last
		}
	}
}

func validVersion(s string) bool {
	_, err := version.Parse(s)
	return err == nil
}

// splitLast splits a path at its last slash.
func splitLast(p string) (string, string) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", p
	}
	return p[:i], p[i+1:]
}

// urlOf returns the WebSocket URL of version v: the dialled URL with its version segment, if
// any, replaced by v.
func (vs *versions) urlOf(v string) (*url.URL, error) {
	if !strings.HasSuffix(vs.url.Path, "/ws") {
		return nil, fmt.Errorf("client: cannot call version %s: the WebSocket URL %q does not end in /ws", v, vs.url)
	}
	root := strings.TrimSuffix(vs.url.Path, "/ws")
	if vs.own != "" {
		root, _ = splitLast(root)
	}
	u := *vs.url
	u.Path, u.RawPath = root+"/"+v+"/ws", ""
	return &u, nil
}

var errClosed = errors.New("client: the WebSocket connection is closed")

// at returns the connection to version v, dialling it on first use.
func (vs *versions) at(ctx context.Context, v string) (*WSConn, error) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if c := vs.conns[v]; c != nil {
		select {
		case <-c.done: // broken: dial again
		default:
			return c, nil
		}
	}
	if vs.closed {
		return nil, errClosed
	}
	u, err := vs.urlOf(v)
	if err != nil {
		return nil, err
	}
	c, err := dialWS(ctx, u, vs.o)
	if err != nil {
		return nil, err
	}
	if vs.conns == nil {
		vs.conns = make(map[string]*WSConn)
	}
	vs.conns[v] = c
	return c, nil
}

// close closes the connections to other versions.
func (vs *versions) close() []error {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	var errs []error
	for _, c := range vs.conns {
		if err := c.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	vs.conns, vs.closed = nil, true
	return errs
}
