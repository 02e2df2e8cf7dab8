package alerts

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/smtp"
	"net/url"
	"strings"
	"time"
	"unicode"
)

// SMTP is where e-mail notifications go: a submission server that offers STARTTLS (mail is
// never sent in clear). Set from the -smtp flag with ParseSMTP.
type SMTP struct {
	// Addr is the server's host:port.
	Addr string
	// From is the sender's address.
	From string
	// User and Password, when User is set, log in (PLAIN, over TLS only).
	User, Password string
	// Roots verifies the server's certificate. Default (nil): the system's roots.
	Roots *x509.CertPool
}

// SMTPPasswordEnv is the environment variable ParseSMTP reads the password from when the URL
// names a user without one, so that the password need not be on a command line, which ps
// shows to every user of the machine.
const SMTPPasswordEnv = "SVC_SMTP_PASSWORD"

// ParseSMTP parses smtp://[user[:password]@]host:port?from=address; getenv (os.Getenv) gives
// SMTPPasswordEnv for a user without a password in the URL.
func ParseSMTP(s string, getenv func(string) string) (*SMTP, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "smtp" || u.Host == "" || u.Port() == "" {
		return nil, errors.New(`smtp: want smtp://[user:password@]host:port?from=address`)
	}
	c := &SMTP{Addr: u.Host, From: u.Query().Get("from")}
	if c.From == "" {
		return nil, errors.New("smtp: the URL names no sender (?from=address)")
	}
	if u.User != nil {
		c.User = u.User.Username()
		var ok bool
		if c.Password, ok = u.User.Password(); !ok {
			c.Password = getenv(SMTPPasswordEnv)
		}
		if c.Password == "" {
			return nil, fmt.Errorf("smtp: the URL names the user %q but no password, and %s is empty", c.User, SMTPPasswordEnv)
		}
	}
	return c, nil
}

// send mails the notification body (the webhook's JSON) to one address.
func (c *SMTP) send(ctx context.Context, to string, body []byte) error {
	if c == nil {
		return errors.New("no SMTP server configured (-smtp)")
	}
	host, _, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return err
	}
	d := net.Dialer{Timeout: connectTimeout}
	conn, err := d.DialContext(ctx, "tcp", c.Addr)
	if err != nil {
		return err
	}
	_ = conn.SetDeadline(time.Now().Add(mailTimeout))
	cl, err := smtp.NewClient(conn, host)
	if err != nil {
		conn.Close()
		return err
	}
	defer cl.Close()
	if ok, _ := cl.Extension("STARTTLS"); !ok {
		return errors.New("the SMTP server offers no STARTTLS")
	}
	if err := cl.StartTLS(&tls.Config{ServerName: host, RootCAs: c.Roots, MinVersion: tls.VersionTLS12}); err != nil {
		return err
	}
	if c.User != "" {
		if err := cl.Auth(smtp.PlainAuth("", c.User, c.Password, host)); err != nil {
			return err
		}
	}
	if err := cl.Mail(c.From); err != nil {
		return err
	}
	if err := cl.Rcpt(to); err != nil {
		return err
	}
	w, err := cl.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(message(c.From, to, body)); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return cl.Quit()
}

// message renders a notification as a plain-text mail. Every text of the rule is written as
// one line (oneLine), so that no value, even one stored before names were checked, writes
// lines of its own into the headers or the body.
func message(from, to string, body []byte) []byte {
	var n notification
	_ = json.Unmarshal(body, &n)
	n.Rule.ID, n.Rule.Name, n.Rule.Severity, n.State = oneLine(n.Rule.ID), oneLine(n.Rule.Name), oneLine(n.Rule.Severity), oneLine(n.State)
	group, _ := json.Marshal(n.Group)
	values, _ := json.Marshal(n.Values)
	subject := fmt.Sprintf("[%s] %s %s %s", strings.ToUpper(n.State), n.Rule.Severity, n.Rule.Name, group)
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\nMIME-Version: 1.0\r\n", from, to, subject,
		time.Now().UTC().Format(time.RFC1123Z))
	b.WriteString("Content-Type: text/plain; charset=utf-8\r\n\r\n")
	fmt.Fprintf(&b, "Rule: %s (%s)\r\nState: %s\r\nGroup: %s\r\nValues: %s\r\nSince: %s\r\nAt: %s\r\n\r\n%s\r\n",
		n.Rule.Name, n.Rule.ID, n.State, group, values, n.Since.Format(time.RFC3339), n.At.Format(time.RFC3339), body)
	return []byte(b.String())
}

// oneLine replaces what could break s out of its line in a mail (control characters, CR and
// LF among them, Unicode's line and paragraph separators) or make it read otherwise
// (bidirectional formatting characters) with U+FFFD.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r) {
			return unicode.ReplacementChar
		}
		return r
	}, s)
}
