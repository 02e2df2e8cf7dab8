package alerts

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// SignatureHeader is the header that carries a webhook's signature:
// "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed with the channel's secret>".
const SignatureHeader = "Svc-Signature"

// DeliveryHeader is the header that carries a webhook notification's delivery ID: the same
// on every attempt of one notification to one channel, from whichever node sends it, and
// never reused. A receiver that keeps the IDs it acknowledged (for the retry span, about 3
// hours) can drop a notification sent again after a node died between the receiver's
// acknowledgement and its recording, making delivery exactly-once on its side. The header
// is not signed; the body, which is, is the same byte for byte on every attempt too.
const DeliveryHeader = "Svc-Delivery"

// Sign returns the value of SignatureHeader for body sent at t with secret.
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(m.Sum(nil))
}

// newWebhookClient returns the client of webhooks: it dials only what g allows (checked on
// the resolved address), never through a proxy, bounds each attempt (connectTimeout for TCP
// and for TLS each, attemptTimeout in all), follows no redirect (a 3xx answer is a
// failure), and verifies certificates against roots (nil: the system's).
func newWebhookClient(g *Guard, roots *x509.CertPool) *http.Client {
	d := &net.Dialer{Timeout: connectTimeout, Control: g.control}
	return &http.Client{
		Timeout: attemptTimeout,
		Transport: &http.Transport{
			DialContext:         d.DialContext,
			TLSClientConfig:     &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
			TLSHandshakeTimeout: connectTimeout,
			MaxIdleConnsPerHost: 2,
			IdleConnTimeout:     time.Minute,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// postWebhook sends body to target, signed with secret, as delivery id; nil when the receiver
// answered 2xx. An error never holds the URL (a secret: it is stored, answered and logged).
func postWebhook(ctx context.Context, c *http.Client, target, secret string, id int64, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return errors.New("not a URL")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "fnapi-dataservice-alerts")
	req.Header.Set(DeliveryHeader, strconv.FormatInt(id, 10))
	if secret != "" {
		req.Header.Set(SignatureHeader, Sign(secret, time.Now(), body))
	}
	resp, err := c.Do(req)
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		return ue.Err
	} else if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("answered %s", resp.Status)
	}
	return nil
}
