package fnapi

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"
)

// Where SelfSignedCertificate keeps its files, under the data directory.
const (
	certDir  = "tls"
	certFile = "cert.pem"
	keyFile  = "key.pem"
)

// SelfSignedCertificate returns the self-signed certificate kept in dataDir/tls (cert.pem, and
// key.pem with mode 0600), generating it on first use: an ECDSA P-256 key, valid for 397 days,
// whose names are localhost, 127.0.0.1, ::1, the machine's host name and hosts. It is generated
// again when it expires within 30 days or lacks one of those names. The log gets its SHA-256
// fingerprint, for clients to check or pin.
func SelfSignedCertificate(dataDir string, hosts []string, log *zap.Logger) (tls.Certificate, error) {
	if log == nil {
		log = zap.NewNop()
	}
	names := certNames(hosts)
	dir := filepath.Join(dataDir, certDir)
	cpath, kpath := filepath.Join(dir, certFile), filepath.Join(dir, keyFile)
	cert, err := tls.LoadX509KeyPair(cpath, kpath)
	reason := "none found"
	if err == nil {
		if reason = unfit(cert, names); reason == "" {
			log.Info("fnapi: TLS certificate", zap.String("file", cpath), zap.String("sha256", Fingerprint(cert)))
			return cert, nil
		}
	} else if !os.IsNotExist(err) {
		reason = "unreadable: " + err.Error()
	}
	cert, err = generateCertificate(cpath, kpath, names)
	if err != nil {
		return tls.Certificate{}, err
	}
	log.Info("fnapi: generated a self-signed TLS certificate", zap.String("file", cpath), zap.String("reason", reason),
		zap.Strings("names", names), zap.String("sha256", Fingerprint(cert)))
	return cert, nil
}

// Fingerprint returns the SHA-256 fingerprint of cert's leaf certificate, as colon-separated
// upper-case hex pairs (the form browsers and openssl show).
func Fingerprint(cert tls.Certificate) string {
	if len(cert.Certificate) == 0 {
		return ""
	}
	sum := sha256.Sum256(cert.Certificate[0])
	parts := make([]string, len(sum))
	for i, b := range sum {
		parts[i] = fmt.Sprintf("%02X", b)
	}
	return strings.Join(parts, ":")
}

// certNames returns the names the certificate must cover, without duplicates.
func certNames(hosts []string) []string {
	names := []string{"localhost", "127.0.0.1", "::1"}
	if h, err := os.Hostname(); err == nil && h != "" {
		names = append(names, h)
	}
	for _, h := range hosts {
		if h = strings.TrimSpace(h); h != "" && !slices.Contains(names, h) {
			names = append(names, h)
		}
	}
	return names
}

// unfit says why a certificate must be replaced, or "" when it fits.
func unfit(cert tls.Certificate, names []string) string {
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		return "unreadable"
	}
	if time.Until(leaf.NotAfter) < 30*24*time.Hour {
		return "expires soon"
	}
	for _, n := range names {
		if leaf.VerifyHostname(n) != nil {
			return "lacks the name " + n
		}
	}
	return ""
}

func generateCertificate(cpath, kpath string, names []string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("fnapi: TLS key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("fnapi: TLS serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "fnapi self-signed", Organization: []string{"fnapi"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(397 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true, // so that clients can trust it as its own root
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("fnapi: TLS certificate: %w", err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("fnapi: TLS key: %w", err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder})
	if err := os.MkdirAll(filepath.Dir(cpath), 0o700); err != nil {
		return tls.Certificate{}, fmt.Errorf("fnapi: %w", err)
	}
	// The key first: a certificate is never left beside a key that is not its own for long.
	if err := writeFileAtomic(kpath, keyPEM, 0o600); err != nil {
		return tls.Certificate{}, err
	}
	if err := writeFileAtomic(cpath, certPEM, 0o644); err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}

// writeFileAtomic writes data to path with mode perm through a temporary file and a rename.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("fnapi: %w", err)
	}
	defer os.Remove(f.Name())
	err = f.Chmod(perm)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("fnapi: writing %s: %w", path, err)
	}
	return nil
}
