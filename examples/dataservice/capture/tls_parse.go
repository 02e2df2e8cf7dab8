package capture

import (
	"bytes"
	"crypto/x509"
	"encoding/binary"
	"hash/maphash"
	"strings"
	"unicode/utf8"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// Handshake message types the probe reads.
const (
	tlsClientHello = 1
	tlsServerHello = 2
	tlsCertificate = 11
)

// maxCerts is how many certificates' expiry and issuer the probe remembers, so that a server's
// certificate is parsed once, not at every handshake.
const maxCerts = 1024

// helloRetry is the random of a ServerHello that is a HelloRetryRequest (RFC 8446, 4.1.3).
var helloRetry = []byte{0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
	0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c}

// tlsDir reads one direction of a handshake: TLS records, and the handshake messages in
// them, across records and segments.
type tlsDir struct {
	streamDir
	hdr  [5]byte // the record header being read
	nhdr int
	rec  int  // body bytes of the current record still to come
	typ  byte // its content type
	ccs  bool // a ChangeCipherSpec was sent (TLS 1.2 and older): what follows is encrypted
	done bool // nothing more to read this way
	// The handshake message being read.
	mhdr  [4]byte
	nm    int
	mleft int // body bytes still to come
	want  int // body bytes to keep in buf (0: skip them)
	buf   []byte
}

// tlsTable is what a Table keeps for every conversation's TLS decoding.
type tlsTable struct {
	buffered int // bytes the tlsDirs keep, at most MaxTLSBuffered
	seed     maphash.Seed
	certs    map[uint64]certInfo
}

type certInfo struct {
	notAfter int64
	issuer   string
}

// tlsRead reads the TLS records b continues from side, and says whether the handshake ended
// with them (the server's Finished, TLS 1.2 and older).
func (t *Table) tlsRead(c *conv, d *tlsDir, b []byte, p *Packet, side int) bool {
	h := c.tls
	for len(b) > 0 && !d.done {
		if d.nhdr < 5 {
			k := copy(d.hdr[d.nhdr:], b)
			d.nhdr += k
			b = b[k:]
			if d.nhdr < 5 {
				break
			}
			d.typ, d.rec = d.hdr[0], int(binary.BigEndian.Uint16(d.hdr[3:]))
			if d.typ < 20 || d.typ > 23 || d.hdr[1] != 3 || d.rec > 1<<14+2048 {
				t.tlsGiveUp(d) // not TLS
				break
			}
			if d.typ == 20 && h.phase == tlsFinished { // TLS 1.3's is for middleboxes only
				d.ccs = true
			}
			if d.rec > 0 {
				continue
			}
		}
		k := min(d.rec, len(b))
		if d.typ == 22 && !d.ccs {
			t.tlsHandshake(c, d, b[:k], p, side)
		}
		b = b[k:]
		if d.rec -= k; d.rec == 0 {
			d.nhdr = 0
			if side == 1 && d.typ == 22 && d.ccs && h.phase == tlsFinished {
				h.end = p.Time // the server's Finished
				return true
			}
		}
	}
	return false
}

// tlsHandshake reads the bytes of handshake messages b, from side.
func (t *Table) tlsHandshake(c *conv, d *tlsDir, b []byte, p *Packet, side int) {
	for len(b) > 0 && !d.done {
		if d.nm < 4 {
			if d.nm == 0 && len(b) >= 4 { // a whole message in b: read in place
				if n := int(b[1])<<16 | int(b[2])<<8 | int(b[3]); 4+n <= len(b) {
					t.tlsMessage(c, d, b[0], b[4:4+n], p, side)
					b = b[4+n:]
					continue
				}
			}
			k := copy(d.mhdr[d.nm:], b)
			d.nm += k
			b = b[k:]
			if d.nm < 4 {
				return
			}
			d.mleft = int(d.mhdr[1])<<16 | int(d.mhdr[2])<<8 | int(d.mhdr[3])
			if t.tlsKeeps(c, d.mhdr[0], side) {
				n := d.mleft
				if d.mhdr[0] == tlsCertificate {
					n = min(n, 6) // the lengths of the chain and of the leaf, then the leaf
				}
				t.tlsKeep(d, n)
			}
		}
		k := min(d.mleft, len(b))
		if need := d.want - len(d.buf); need > 0 {
			k = min(k, need) // the rest once the message is read, or its kept part widened
			d.buf = append(d.buf, b[:k]...)
		}
		b = b[k:]
		d.mleft -= k
		if d.mhdr[0] == tlsCertificate && d.want == 6 && len(d.buf) == 6 {
			t.tlsKeep(d, 6+(int(d.buf[3])<<16|int(d.buf[4])<<8|int(d.buf[5])))
		}
		if d.want > 0 && len(d.buf) == d.want {
			t.tlsMessage(c, d, d.mhdr[0], d.buf, p, side)
			t.tlsKeep(d, 0)
		}
		if d.mleft == 0 {
			d.nm = 0
			t.tlsKeep(d, 0)
		}
	}
}

// tlsKeeps says whether the body of a handshake message of type typ from side is read: the
// first ClientHello, the ServerHellos, and the certificate of TLS 1.2 and older.
func (t *Table) tlsKeeps(c *conv, typ byte, side int) bool {
	switch ph := c.tls.phase; {
	case side == 0:
		return typ == tlsClientHello && ph == tlsHello
	case typ == tlsServerHello:
		return ph == tlsServer
	default:
		return typ == tlsCertificate && ph == tlsFinished && c.tls.info.NotAfter == 0
	}
}

// tlsKeep sets how many body bytes d keeps of its message: n, or none (0) when n is past
// MaxTLSMessage or the table's MaxTLSBuffered, a certificate then counted as skipped.
func (t *Table) tlsKeep(d *tlsDir, n int) {
	if n > MaxTLSMessage || t.tls.buffered-d.want+n > MaxTLSBuffered {
		if d.mhdr[0] == tlsCertificate {
			t.stats.TLSCertsSkipped++
		}
		n = 0
	}
	t.tls.buffered += n - d.want
	d.want = n
	switch {
	case n == 0:
		d.buf = nil
	case n > cap(d.buf): // exactly what is kept, so that appending never grows it
		b := make([]byte, len(d.buf), n)
		copy(b, d.buf)
		d.buf = b
	}
}

// tlsGiveUp stops reading d.
func (t *Table) tlsGiveUp(d *tlsDir) {
	t.tlsKeep(d, 0)
	d.done = true
}

// tlsRelease gives back what h's directions keep.
func (t *Table) tlsRelease(h *tlsConv) {
	t.tlsGiveUp(&h.dir[0])
	t.tlsGiveUp(&h.dir[1])
}

// tlsMessage reads handshake message body of type typ from side, one tlsKeeps chose or
// any in place.
func (t *Table) tlsMessage(c *conv, d *tlsDir, typ byte, body []byte, p *Packet, side int) {
	if !t.tlsKeeps(c, typ, side) {
		return
	}
	h := c.tls
	switch typ {
	case tlsClientHello:
		h.hello, h.phase = true, tlsServer
		if h.sni = helloSNI(body); h.sni != "" {
			c.rec.ServerName = h.sni
		}
		t.tlsGiveUp(d) // the client's later messages tell nothing the probe reads
	case tlsServerHello:
		version, cipher, retry, ok := serverHello(body)
		if !ok || retry {
			return // a HelloRetryRequest: the next ServerHello answers the second ClientHello
		}
		h.info.Version, h.info.Cipher = version, cipher
		if version >= 0x0304 {
			h.phase, h.lastServer = tlsFlight, p.Time
			t.tlsGiveUp(d) // the rest is encrypted
		} else {
			h.phase = tlsFinished
		}
	case tlsCertificate:
		if len(body) < 6 {
			return
		}
		n := int(body[3])<<16 | int(body[4])<<8 | int(body[5])
		if 6+n > len(body) {
			return
		}
		ci := t.cert(body[6 : 6+n])
		h.info.NotAfter, h.info.Issuer = ci.notAfter, ci.issuer
	}
}

// cert returns the expiry and issuer of certificate der, parsed once per certificate.
func (t *Table) cert(der []byte) certInfo {
	if t.tls.certs == nil {
		t.tls.seed, t.tls.certs = maphash.MakeSeed(), make(map[uint64]certInfo)
	}
	k := maphash.Bytes(t.tls.seed, der)
	if ci, ok := t.tls.certs[k]; ok {
		return ci
	}
	var ci certInfo
	if x, err := x509.ParseCertificate(der); err == nil {
		ci.notAfter, ci.issuer = x.NotAfter.Unix(), cutUTF8(x.Issuer.String(), records.MaxIssuerLen)
	}
	if len(t.tls.certs) >= maxCerts {
		for k := range t.tls.certs {
			delete(t.tls.certs, k)
			break
		}
	}
	t.tls.certs[k] = ci
	return ci
}

// cutUTF8 cuts s to at most n bytes, at a character's start.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.ToValidUTF8(s[:n], "")
}

// serverHello reads a ServerHello's body: the version (supported_versions' where present),
// the cipher suite, and whether it is a HelloRetryRequest.
func serverHello(b []byte) (version, cipher uint16, retry, ok bool) {
	if len(b) < 35 {
		return 0, 0, false, false
	}
	version, retry = binary.BigEndian.Uint16(b), bytes.Equal(b[2:34], helloRetry)
	b = b[34:]
	if n := int(b[0]); len(b) < 1+n+3 {
		return 0, 0, false, false
	} else {
		b = b[1+n:]
	}
	cipher = binary.BigEndian.Uint16(b)
	b = b[3:] // cipher suite, compression method
	if len(b) < 2 {
		return version, cipher, retry, true
	}
	b = b[2:min(len(b), 2+int(binary.BigEndian.Uint16(b)))]
	for len(b) >= 4 {
		typ, n := binary.BigEndian.Uint16(b), int(binary.BigEndian.Uint16(b[2:]))
		b = b[4:]
		if n > len(b) {
			break
		}
		if typ == 43 && n == 2 { // supported_versions: the one selected
			version = binary.BigEndian.Uint16(b)
		}
		b = b[n:]
	}
	return version, cipher, retry, true
}
