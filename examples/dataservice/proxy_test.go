package main

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// from is an HTTPS client (any certificate) whose connections come from the local address ip:
// on Linux every 127.0.0.0/8 address is the loopback's, so that one machine holds many clients.
func from(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
}

// TestProxyProtocol runs a node behind haproxy with the shipped configuration, which sends the
// PROXY protocol v2, and the node trusting haproxy's address (-proxy-protocol): failed logins
// with made-up names from one client lock that client out and not another one behind the
// same haproxy; the audit trail and the log name each client's own address; and a PROXY
// header from an address the node does not trust is refused, as is a connection from
// haproxy's address without one.
func TestProxyProtocol(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the service and haproxy")
	}
	testenv.Need(t, "haproxy", "haproxy")
	data := t.TempDir()
	node := startService(t, "-addr", fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t)), "-data", data,
		"-proxy-protocol", "127.0.0.1/32")
	pw, err := os.ReadFile(filepath.Join(data, "admin-password"))
	if err != nil {
		t.Fatal(err)
	}
	nodeAddr := strings.TrimPrefix(node.url, "https://")
	front := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	hp := testenv.StartHAProxy(t, "deploy/haproxy.cfg", map[string]string{
		"DATASERVICE_LISTEN": front, "DATASERVICE_NODE1": nodeAddr, "DATASERVICE_NODE2": nodeAddr,
	}, front)
	ctx := context.Background()
	via := func(hc *http.Client, base string, opts ...client.Option) *client.Client {
		c, err := client.New(base+"/api", append([]client.Option{client.WithHTTPClient(hc)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	attacker, user := via(from("127.0.0.2"), "https://"+front), via(from("127.0.0.3"), "https://"+front)
	testutil.Until(t, time.Minute, "haproxy sees the node ready", func() error { return user.Call(ctx, "echo", nil, nil) })

	// Made-up names from one client, until it is throttled.
	limited := false
	for i := 0; i < 60 && !limited; i++ {
		err := attacker.Call(ctx, "login", map[string]string{"user": fmt.Sprintf("nobody%d", i), "password": "guess"}, nil)
		switch {
		case errors.Is(err, apierr.New(apierr.RateLimited)):
			limited = true
		case !errors.Is(err, apierr.New(apierr.InvalidCredentials)):
			t.Fatalf("login %d through haproxy: %v\nhaproxy:\n%s", i, err, hp.Log())
		}
	}
	if !limited {
		t.Fatal("60 failed logins from one client were never throttled")
	}
	// Another client behind the same haproxy logs in.
	var session string
	if err := user.Call(ctx, "login", map[string]string{"user": "admin", "password": strings.TrimSpace(string(pw))}, &session); err != nil {
		t.Fatalf("another client behind haproxy, after the first was throttled: %v", err)
	}
	admin := via(from("127.0.0.3"), "https://"+front, client.WithSession(session))
	if err := admin.Call(ctx, "create-api-key", map[string]string{"name": "behind-haproxy"}, nil); err != nil {
		t.Fatal(err)
	}
	var events []struct{ Action, Address string }
	if err := admin.Call(ctx, "list-audit", nil, &events); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range events {
		if e.Action == "create-api-key" {
			found = true
			if e.Address != "127.0.0.3" {
				t.Errorf("the audit trail records %s for create-api-key, want the client's 127.0.0.3", e.Address)
			}
		}
	}
	if !found {
		t.Fatalf("no create-api-key in the audit trail: %v", events)
	}
	log := node.log.String()
	for _, want := range []string{`"client":"127.0.0.2"`, `"client":"127.0.0.3"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the log never says %s:\n%s", want, log)
		}
	}

	// Directly: a stranger's PROXY header is refused; its plain connection served.
	header := func(c net.Conn) error {
		b := append([]byte("\r\n\r\n\x00\r\nQUIT\n"), 0x21, 0x11, 0, 12, 203, 0, 113, 9, 127, 0, 0, 1)
		b = binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(b, 4242), 8443)
		_, err := c.Write(b)
		return err
	}
	dial := func(ip string, withHeader bool) error {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
		c, err := d.Dial("tcp", nodeAddr)
		if err != nil {
			return err
		}
		defer c.Close()
		if withHeader {
			if err := header(c); err != nil {
				return err
			}
		}
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		return tls.Client(c, &tls.Config{InsecureSkipVerify: true}).Handshake()
	}
	if err := dial("127.0.0.2", true); err == nil {
		t.Error("a PROXY header from 127.0.0.2, not trusted, was accepted")
	}
	if err := dial("127.0.0.2", false); err != nil {
		t.Errorf("a plain connection from 127.0.0.2, not trusted: %v", err)
	}
	if err := dial("127.0.0.1", false); err == nil {
		t.Error("a connection from haproxy's address without a PROXY header was accepted")
	}
	if err := dial("127.0.0.1", true); err != nil {
		t.Errorf("a PROXY header from 127.0.0.1, trusted: %v", err)
	}
}
