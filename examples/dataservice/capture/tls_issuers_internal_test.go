package capture

import (
	"bytes"
	"crypto/ed25519"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// issuerCerts returns n certificates alike but for their issuer's common name, issuer-N: one
// self-signed certificate whose issuer is patched (the probe reads certificates, it does not
// verify them).
func issuerCerts(t *testing.T, n int) [][]byte {
	t.Helper()
	pub, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	const cn = "issuer-00000000"
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Unix(1700000000, 0), NotAfter: time.Unix(1800000000, 0)}
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, pub, key)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(der, []byte(cn)) // the issuer's, before the subject's
	certs := make([][]byte, n)
	for i := range certs {
		c := bytes.Clone(der)
		copy(c[at:], fmt.Sprintf("issuer-%08d", i))
		certs[i] = c
	}
	return certs
}

// clientHello12 is a ClientHello of Go's TLS client, at most TLS 1.2.
func clientHello12(t *testing.T) []byte {
	t.Helper()
	c, s := net.Pipe()
	go func() {
		tls.Client(c, &tls.Config{ServerName: "issuers.example", MaxVersion: tls.VersionTLS12}).Handshake()
		c.Close()
	}()
	buf := make([]byte, 4096)
	n, err := s.Read(buf)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	return buf[:n]
}

// tlsIssuers makes a TLS 1.2 handshake for each certificate, on its own connection, in one
// hour, and returns the issuers of their records and the table's counters.
func tlsIssuers(t *testing.T, cfg Config, certs [][]byte) ([]string, Stats) {
	t.Helper()
	hello := clientHello12(t)
	var got []string
	tbl := NewTable(cfg, func(r Record) {
		if r.Layer == records.LayerTLS {
			got = append(got, r.TLS.Issuer)
		}
	})
	for i, der := range certs {
		f := newTLSFeed(tbl, uint16(20000+i))
		f.send(0, hello)
		chain := []byte{byte((len(der) + 3) >> 16), byte((len(der) + 3) >> 8), byte(len(der) + 3), byte(len(der) >> 16), byte(len(der) >> 8), byte(len(der))}
		f.send(1, tlsRecordsOf(22, serverHello12(tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256),
			handshakeMessage(tlsCertificate, append(chain, der...)), handshakeMessage(14, nil)))
		f.send(0, tlsRecordsOf(20, []byte{1}))
		f.send(1, append(tlsRecordsOf(20, []byte{1}), tlsRecordsOf(22, make([]byte, 40))...)) // the Finished: the record
	}
	tbl.Flush()
	if len(got) != len(certs) {
		t.Fatalf("%d TLS records of %d handshakes", len(got), len(certs))
	}
	return got, tbl.Stats()
}

// TestTLSIssuersBoundedPerHour makes, in one hour, more handshakes than the records of an
// hour may carry issuers (Config.MaxTLSIssuers's default, 10,000), each with a certificate of
// an issuer of its own, as whoever answers ClientHellos may send: past the bound a record's
// issuer reads HTTPOther; an issuer already among the hour's stays.
func TestTLSIssuersBoundedPerHour(t *testing.T) {
	t.Parallel()
	const max, extra = 10_000, 20
	certs := issuerCerts(t, max+extra)
	certs = append(certs, certs[0])
	got, _ := tlsIssuers(t, Config{}, certs)
	issuers, other := map[string]bool{}, 0
	for _, s := range got {
		if s == HTTPOther {
			other++
		} else {
			issuers[s] = true
		}
	}
	if len(issuers) != max || other != extra || got[len(got)-1] != "CN=issuer-00000000" {
		t.Errorf("%d distinct issuers and %d records of %q in one hour, the last of %q; want %d, %d, CN=issuer-00000000",
			len(issuers), other, HTTPOther, got[len(got)-1], max, extra)
	}
}

// TestTLSIssuersLeftOut counts the records whose issuer was left out, with
// Config.MaxTLSIssuers set.
func TestTLSIssuersLeftOut(t *testing.T) {
	t.Parallel()
	if got := NewTable(Config{}, nil).Config().MaxTLSIssuers; got != 10_000 {
		t.Errorf("MaxTLSIssuers defaults to %d, want 10,000", got)
	}
	certs := issuerCerts(t, 4)
	got, st := tlsIssuers(t, Config{MaxTLSIssuers: 2}, [][]byte{certs[0], certs[1], certs[2], certs[0], certs[3]})
	want := []string{"CN=issuer-00000000", "CN=issuer-00000001", HTTPOther, "CN=issuer-00000000", HTTPOther}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("issuers %q, want %q", got, want)
		}
	}
	if st.TLSIssuersLeftOut != 2 || st.TLSRecords != 5 {
		t.Errorf("%d issuers left out of %d records, want 2 of 5", st.TLSIssuersLeftOut, st.TLSRecords)
	}
}
