package app

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

func FuzzParseAuthChange(f *testing.F) {
	h := sha256.Sum256([]byte("session:x"))
	f.Add("token:" + hex.EncodeToString(h[:]))
	f.Add("user:ann")
	f.Add("user:")
	f.Add("token:zz")
	f.Add("")
	f.Fuzz(func(t *testing.T, payload string) {
		c := parseAuthChange(payload)
		switch {
		case c.user != "":
			if payload != "user:"+c.user {
				t.Fatalf("%q gave user %q", payload, c.user)
			}
		case c.token:
			if payload != "token:"+hex.EncodeToString(c.hash[:]) && !strings.EqualFold(payload, "token:"+hex.EncodeToString(c.hash[:])) {
				t.Fatalf("%q gave hash %x", payload, c.hash)
			}
		}
	})
}

func FuzzParsePostgresURL(f *testing.F) {
	f.Add("postgres://ds:Secret123@db:5432/ds?sslmode=disable")
	f.Add("postgresql://ds:Secret123@db:notaport/ds")
	f.Add("postgres://ds:Secret123@[::1/ds")
	f.Add("postgres://ds:Secret123@db/ds?sslmode=bogus&connect_timeout=x")
	f.Add("host=db password=Secret123")
	f.Fuzz(func(t *testing.T, url string) {
		cfg, err := ParsePostgresURL(url)
		if err == nil {
			if cfg.ConnectTimeout <= 0 {
				t.Fatalf("%q: no connect timeout", url)
			}
			return
		}
		// The password is Secret123 where the URL's authority (after "://", before the path)
		// has it so; the error may show that text elsewhere (a host or a path named so), never
		// as the password.
		// Where the URL has the text past its authority too (a database named so), the error
		// may quote it there.
		_, rest, _ := strings.Cut(url, "://")
		authority, after, _ := strings.Cut(rest, "/")
		if strings.Contains(after, "Secret123") {
			return
		}
		if e := err.Error(); strings.Contains(authority, ":Secret123@") && (strings.Contains(e, ":Secret123@") || strings.Contains(e, "password=Secret123")) {
			t.Fatalf("the error shows the password: %v", err)
		}
	})
}
