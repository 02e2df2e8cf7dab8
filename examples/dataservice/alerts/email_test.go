package alerts_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/alerts"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/internal/testutil"
)

// startSMTP starts aiosmtpd (Debian's python3-aiosmtpd), which requires STARTTLS before any
// mail, on a free port with a certificate made here; it stores what it receives in the
// Maildir it returns.
func startSMTP(t *testing.T) (addr string, roots *x509.CertPool, maildir string) {
	t.Helper()
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import aiosmtpd").Run(); err != nil {
		if testenv.CI() {
			t.Fatalf("aiosmtpd not found: .ci/install-extras installs it (apt-get install python3-aiosmtpd)")
		}
		t.Skip("aiosmtpd not found; apt-get install python3-aiosmtpd to run this test")
	}
	dir := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	roots = x509.NewCertPool()
	roots.AddCert(cert)
	maildir = filepath.Join(dir, "mail")
	addr = "127.0.0.1:" + strconv.Itoa(testenv.FreePort(t))
	cmd := exec.Command(python, "-m", "aiosmtpd", "-n", "-l", addr, "--tlscert", certFile, "--tlskey", keyFile,
		"-c", "aiosmtpd.handlers.Mailbox", maildir)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	testutil.Until(t, testutil.Wait, "aiosmtpd to listen on "+addr, func() error {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err
	})
	return addr, roots, maildir
}

// TestEmail sends a firing alert by e-mail through a real SMTP server that accepts mail only
// after STARTTLS.
func TestEmail(t *testing.T) {
	t.Parallel()
	addr, roots, maildir := startSMTP(t)
	e := newEnv(t, alerts.Options{SMTP: &alerts.SMTP{Addr: addr, From: "alerts@example.com", Roots: roots}})
	ctx := context.Background()
	t0 := time.Now().Truncate(time.Hour).Add(-time.Hour)
	e.rule(t, state.AlertRule{Name: "busy server", Severity: "critical",
		Query:  "traffic BY server.ip HAVING traffic > 1000 SINCE @now-300",
		Notify: notify(t, alerts.Channel{Email: "noc@example.com"})})
	e.traffic(t, t0.Unix()-10, "10.0.0.2", 5000)
	e.tick(t, t0)
	if err := e.svc.Deliver(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	if cs, err := e.st.Channels(ctx); err != nil || len(cs) != 1 || cs[0].Error != "" || !cs[0].Done {
		t.Fatalf("channel state: %+v, %v", cs, err)
	}
	files, _ := filepath.Glob(filepath.Join(maildir, "new", "*"))
	if len(files) != 1 {
		t.Fatalf("%d messages in the Maildir, want 1", len(files))
	}
	msg, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"To: noc@example.com", `Subject: [FIRING] critical busy server ["10.0.0.2"]`, "Values: [5000]"} {
		if !strings.Contains(string(msg), want) {
			t.Errorf("the message lacks %q:\n%s", want, msg)
		}
	}
}

// TestEmailOneLine sends by e-mail, through the real SMTP server, a rule whose name and
// severity hold CR LF, as one stored before they were checked may: they write no header and no
// line of the body (issue 45, finding 9).
func TestEmailOneLine(t *testing.T) {
	t.Parallel()
	addr, roots, maildir := startSMTP(t)
	e := newEnv(t, alerts.Options{SMTP: &alerts.SMTP{Addr: addr, From: "alerts@example.com", Roots: roots}})
	ctx := context.Background()
	t0 := time.Now().Truncate(time.Hour).Add(-time.Hour)
	e.rule(t, state.AlertRule{Name: "busy\r\nState: resolved\r\n\r\nAll clear, see https://evil.example/\u2028x",
		Severity: "critical\r\nBcc: spy@evil.example\n", Query: "traffic BY server.ip HAVING traffic > 1000 SINCE @now-300",
		Notify: notify(t, alerts.Channel{Email: "noc@example.com"})})
	e.traffic(t, t0.Unix()-10, "10.0.0.2", 5000)
	e.tick(t, t0)
	if err := e.svc.Deliver(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(maildir, "new", "*"))
	if len(files) != 1 {
		t.Fatalf("%d messages in the Maildir, want 1", len(files))
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if bcc := msg.Header.Get("Bcc"); bcc != "" {
		t.Errorf("the rule wrote a header Bcc: %s", bcc)
	}
	if got := msg.Header.Get("Subject"); !strings.HasPrefix(got, "[FIRING] critical\ufffd\ufffdBcc: spy@evil.example\ufffd busy\ufffd\ufffdState: resolved") {
		t.Errorf("subject %q", got)
	}
	body, _ := io.ReadAll(msg.Body)
	var states []string
	for line := range strings.Lines(string(body)) { // the Maildir keeps LF line ends
		line = strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(line, "State:") || strings.HasPrefix(line, "All clear") {
			states = append(states, line)
		}
	}
	if len(states) != 1 || states[0] != "State: firing" {
		t.Errorf("the body's lines of state: %q\n%s", states, raw)
	}
}

// TestParseSMTP checks the -smtp URL: the password from the URL or, for a user without one,
// from SVC_SMTP_PASSWORD, and a clear error for each wrong form.
func TestParseSMTP(t *testing.T) {
	t.Parallel()
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == alerts.SMTPPasswordEnv {
				return v
			}
			return ""
		}
	}
	for _, tt := range []struct {
		url, env, user, password, err string
	}{
		{url: "smtp://mx.example.com:587?from=a@example.com"},
		{url: "smtp://bob:s3cret@mx.example.com:587?from=a@example.com", env: "other", user: "bob", password: "s3cret"},
		{url: "smtp://bob@mx.example.com:587?from=a@example.com", env: "fromenv", user: "bob", password: "fromenv"},
		{url: "smtp://bob@mx.example.com:587?from=a@example.com", err: "names the user \"bob\" but no password, and SVC_SMTP_PASSWORD is empty"},
		{url: "smtp://mx.example.com:587", err: "names no sender"},
		{url: "https://mx.example.com:587?from=a@example.com", err: "want smtp://"},
		{url: "smtp://mx.example.com?from=a@example.com", err: "want smtp://"},
	} {
		c, err := alerts.ParseSMTP(tt.url, env(tt.env))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want one with %q", tt.url, err, tt.err)
			}
			continue
		}
		if err != nil || c.User != tt.user || c.Password != tt.password || c.Addr != "mx.example.com:587" {
			t.Errorf("%s: %+v, %v; want user %q, password %q", tt.url, c, err, tt.user, tt.password)
		}
	}
}
