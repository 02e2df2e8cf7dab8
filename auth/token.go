package auth

import (
	"crypto/sha256"
	"fmt"

	"github.com/google/uuid"
)

// Token prefixes: a session ID is "session:<uuid>", an API key "secret:<uuid>".
const (
	SessionPrefix = "session:"
	KeyPrefix     = "secret:"
)

// newToken returns a fresh token: prefix and a random (version 4) UUID, whose 122 random bits
// come from crypto/rand, and the hash under which it is stored.
func newToken(prefix string) (string, Hash, error) {
	id, err := uuid.NewRandom()
	if err != nil {
		return "", Hash{}, fmt.Errorf("auth: token: %w", err)
	}
	tok := prefix + id.String()
	return tok, sha256.Sum256([]byte(tok)), nil
}

// hashToken checks that tok is prefix followed by a UUID in its 36-character form and returns
// the hash it is stored under. Hex digits are compared case-insensitively: the hash is taken of
// the lower-case form. It allocates nothing.
func hashToken(prefix, tok string) (Hash, bool) {
	const uuidLen = 36
	if len(tok) != len(prefix)+uuidLen || tok[:len(prefix)] != prefix {
		return Hash{}, false
	}
	var buf [len(SessionPrefix) + uuidLen]byte // the longer prefix
	n := copy(buf[:], prefix)
	for i := 0; i < uuidLen; i++ {
		c := tok[len(prefix)+i]
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return Hash{}, false
			}
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f':
		case c >= 'A' && c <= 'F':
			c += 'a' - 'A'
		default:
			return Hash{}, false
		}
		buf[n+i] = c
	}
	return sha256.Sum256(buf[:n+uuidLen]), true
}
