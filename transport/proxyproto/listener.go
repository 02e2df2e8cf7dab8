package proxyproto

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"time"

	"go.uber.org/zap"
)

// DefaultHeaderTimeout is how long a trusted connection may take to send its header, unless
// Listener.HeaderTimeout says otherwise.
const DefaultHeaderTimeout = 5 * time.Second

// Listener wraps a listener whose trusted peers send the PROXY protocol: see the package
// documentation. Its fields are read by Accept and must not change while it serves.
type Listener struct {
	net.Listener
	// Trusted are the addresses of the load balancers, whose connections must begin with a
	// PROXY header. Default: none (a header is refused from everyone).
	Trusted []netip.Prefix
	// HeaderTimeout bounds the reading of a trusted connection's header. Default:
	// DefaultHeaderTimeout.
	HeaderTimeout time.Duration
	// Logger receives each refused connection: at warn level from a trusted address (a
	// balancer that sends no header or a wrong one), at debug level from another (a stranger's
	// header). Default: no logging.
	Logger *zap.Logger
}

// Accept returns the next connection, wrapped so that its header is read on first use.
func (l *Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &Conn{Conn: c, l: l, trusted: l.trusts(c.RemoteAddr())}, nil
}

// trusts reports whether addr is one of the trusted balancers.
func (l *Listener) trusts(addr net.Addr) bool {
	ta, ok := addr.(*net.TCPAddr)
	if !ok {
		return false
	}
	ip, ok := netip.AddrFromSlice(ta.IP)
	if !ok {
		return false
	}
	ip = ip.Unmap()
	for _, p := range l.Trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// Conn is a connection accepted by a Listener. Its RemoteAddr is the client's address the
// PROXY header names. Safe for concurrent use as a net.Conn is.
type Conn struct {
	net.Conn
	l       *Listener
	trusted bool

	once    sync.Once
	err     error    // the header's refusal
	remote  net.Addr // the client's address; nil: the connection's own
	pending []byte   // bytes read past the header, for the first Reads
	readErr error    // an error of the first read of a connection not trusted, for its Read

	mu       sync.Mutex
	deadline time.Time // the read deadline the user set
	inHeader bool      // reading the header under its own deadline
}

// RemoteAddr returns the client's address the header names. On a trusted connection it reads
// the header first (at most Listener.HeaderTimeout); the connection's own address when the
// header names none or was refused.
func (c *Conn) RemoteAddr() net.Addr {
	if !c.trusted {
		return c.Conn.RemoteAddr()
	}
	c.once.Do(c.readHeader)
	if c.remote != nil {
		return c.remote
	}
	return c.Conn.RemoteAddr()
}

// Read reads past the header; it returns the header's refusal, if any.
func (c *Conn) Read(p []byte) (int, error) {
	c.once.Do(c.readHeader)
	if c.err != nil {
		return 0, c.err
	}
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		if len(c.pending) == 0 {
			c.pending = nil
		}
		return n, nil
	}
	if err := c.readErr; err != nil {
		c.readErr = nil
		return 0, err
	}
	return c.Conn.Read(p)
}

// SetDeadline sets the read and write deadlines, as net.Conn does.
func (c *Conn) SetDeadline(t time.Time) error {
	return errors.Join(c.SetReadDeadline(t), c.Conn.SetWriteDeadline(t))
}

// SetReadDeadline sets the read deadline; while the header is read under its own, it takes
// effect once that is done.
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadline = t
	if c.inHeader {
		return nil
	}
	return c.Conn.SetReadDeadline(t)
}

// readHeader reads the PROXY header of a trusted connection, or makes sure that another does
// not begin with one.
func (c *Conn) readHeader() {
	if c.trusted {
		timeout := c.l.HeaderTimeout
		if timeout <= 0 {
			timeout = DefaultHeaderTimeout
		}
		c.mu.Lock()
		c.inHeader = true
		dl := time.Now().Add(timeout)
		if !c.deadline.IsZero() && c.deadline.Before(dl) {
			dl = c.deadline
		}
		_ = c.Conn.SetReadDeadline(dl)
		c.mu.Unlock()
		defer func() {
			c.mu.Lock()
			c.inHeader = false
			_ = c.Conn.SetReadDeadline(c.deadline)
			c.mu.Unlock()
		}()
	}
	h, rest, err := c.read()
	switch {
	case err != nil:
		c.refuse(err)
	case h.src.IsValid():
		c.remote = net.TCPAddrFromAddrPort(h.src)
	}
	c.pending = rest
}

// read reads the start of the connection: the header and the bytes read past it, or, on a
// connection that is not trusted, the bytes read to tell that no header begins it.
func (c *Conn) read() (header, []byte, error) {
	buf := make([]byte, 0, 256)
	for {
		if len(buf) == cap(buf) {
			if cap(buf) > MaxHeaderBytes { // cannot be: parse asks for at most MaxHeaderBytes
				return header{}, nil, errors.New("proxyproto: header too long")
			}
			buf = append(buf, make([]byte, MaxHeaderBytes+256-len(buf))...)[:len(buf)]
		}
		n, err := c.Conn.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case n == 0:
		case !c.trusted:
			if !hasPrefix(buf, sigV1) && !hasPrefix(buf, sigV2) {
				return header{}, buf, nil
			}
			if hasPrefix(buf, sigV1) && len(buf) >= len(sigV1) || len(buf) >= len(sigV2) {
				return header{}, nil, errStranger
			}
		default:
			h, size, perr := parse(buf)
			if perr == nil {
				return h, buf[size:], nil
			} else if !errors.Is(perr, errShort) {
				return header{}, nil, perr
			}
		}
		if err != nil {
			if !c.trusted {
				c.readErr = err // the first Read's own error, once its bytes are read
				return header{}, buf, nil
			}
			if len(buf) == 0 && errors.Is(err, io.EOF) {
				return header{}, nil, errClosed
			}
			return header{}, nil, fmt.Errorf("proxyproto: reading the header: %w", err)
		}
	}
}

var (
	errStranger = errors.New("proxyproto: a PROXY header from an address not trusted to send one")
	errClosed   = errors.New("proxyproto: closed before its header")
)

// refuse records err as the connection's answer to every Read, and logs it.
func (c *Conn) refuse(err error) {
	c.err = err
	if c.l.Logger == nil {
		return
	}
	from := zap.Stringer("from", c.Conn.RemoteAddr())
	if c.trusted && err != errClosed {
		c.l.Logger.Warn("proxyproto: refused a connection of a trusted balancer", from, zap.Error(err))
	} else {
		c.l.Logger.Debug("proxyproto: refused a connection", from, zap.Error(err))
	}
}
