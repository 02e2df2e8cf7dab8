package auth

import (
	"crypto/sha256"
	"strings"
	"testing"
)

func TestHashToken(t *testing.T) {
	t.Parallel()
	const id = "0b0c3a57-7c2e-4c54-9a4e-5f1d2c3b4a59"
	tests := []struct {
		prefix, tok string
		ok          bool
	}{
		{SessionPrefix, "session:" + id, true},
		{SessionPrefix, "session:" + strings.ToUpper(id), true},
		{KeyPrefix, "secret:" + id, true},
		{KeyPrefix, "session:" + id, false},
		{SessionPrefix, "session:" + id[:35], false},
		{SessionPrefix, "session:" + id + "0", false},
		{SessionPrefix, "session:" + strings.ReplaceAll(id, "-", "0"), false},
		{SessionPrefix, "session:{" + id[1:35] + "}", false},
		{SessionPrefix, "session:0b0c3a57-7c2e-4c54-9a4e-5f1d2c3b4a5g", false},
		{SessionPrefix, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.tok, func(t *testing.T) {
			h, ok := hashToken(tt.prefix, tt.tok)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if ok && h != sha256.Sum256([]byte(strings.ToLower(tt.tok))) {
				t.Fatal("hash is not the SHA-256 of the lower-case token")
			}
		})
	}
}

func TestNewToken(t *testing.T) {
	t.Parallel()
	tok, h, err := newToken(KeyPrefix)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := hashToken(KeyPrefix, tok)
	if !ok || got != h || tok[len(KeyPrefix)+14] != '4' {
		t.Fatalf("token %q does not read back as a version 4 UUID", tok)
	}
}

func FuzzHashToken(f *testing.F) {
	f.Add("session:0b0c3a57-7c2e-4c54-9a4e-5f1d2c3b4a59")
	f.Add("secret:0B0C3A57-7C2E-4C54-9A4E-5F1D2C3B4A59")
	f.Add("session:")
	f.Fuzz(func(t *testing.T, tok string) {
		for _, p := range []string{SessionPrefix, KeyPrefix} {
			h, ok := hashToken(p, tok)
			if !ok {
				continue
			}
			if !strings.HasPrefix(tok, p) || len(tok) != len(p)+36 {
				t.Fatalf("accepted %q", tok)
			}
			if h2, ok2 := hashToken(p, strings.ToLower(tok)); !ok2 || h2 != h {
				t.Fatalf("case changes the hash of %q", tok)
			}
		}
	})
}
