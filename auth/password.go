package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Argon2 sets the cost of password hashing with argon2id. Logins pay it once per attempt;
// calls with a token never do.
type Argon2 struct {
	// Memory in KiB. Default: 19456 (19 MiB).
	Memory uint32
	// Iterations over the memory. Default: 2.
	Iterations uint32
	// Parallelism is the number of lanes. Default: 1.
	Parallelism uint8
}

// withDefaults fills the zero fields with the defaults: the minimum cost current guidance
// recommends for argon2id.
func (p Argon2) withDefaults() Argon2 {
	if p.Memory == 0 {
		p.Memory = 19456
	}
	if p.Iterations == 0 {
		p.Iterations = 2
	}
	if p.Parallelism == 0 {
		p.Parallelism = 1
	}
	return p
}

const (
	saltLen = 16
	keyLen  = 32
)

// hashPassword returns the encoded argon2id hash of password with a fresh salt:
// $argon2id$v=19$m=M,t=T,p=P$salt$hash (unpadded standard base64).
func (p Argon2) hashPassword(password string) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("auth: salt: %w", err)
	}
	sum := argon2.IDKey([]byte(password), salt, p.Iterations, p.Memory, p.Parallelism, keyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Iterations,
		p.Parallelism, base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(sum)), nil
}

// errHashFormat reports a stored password hash that cannot be read.
var errHashFormat = errors.New("auth: password hash is not in the argon2id format")

// parsedHash is a decoded password hash.
type parsedHash struct {
	params    Argon2
	salt, sum []byte
}

// parseHash decodes an encoded argon2id hash, refusing costs no server should pay (a corrupt
// or hostile store must not make a login allocate gigabytes).
func parseHash(encoded string) (parsedHash, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return parsedHash{}, errHashFormat
	}
	var h parsedHash
	for _, kv := range strings.Split(parts[3], ",") {
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			return parsedHash{}, errHashFormat
		}
		n, err := strconv.ParseUint(val, 10, 32)
		if err != nil {
			return parsedHash{}, errHashFormat
		}
		switch name {
		case "m":
			h.params.Memory = uint32(n)
		case "t":
			h.params.Iterations = uint32(n)
		case "p":
			if n > 255 {
				return parsedHash{}, errHashFormat
			}
			h.params.Parallelism = uint8(n)
		default:
			return parsedHash{}, errHashFormat
		}
	}
	p := h.params
	if p.Memory < 8*uint32(p.Parallelism) || p.Memory > 1<<21 || p.Iterations < 1 || p.Iterations > 64 || p.Parallelism < 1 {
		return parsedHash{}, errHashFormat
	}
	var err error
	if h.salt, err = base64.RawStdEncoding.DecodeString(parts[4]); err != nil || len(h.salt) < 8 || len(h.salt) > 64 {
		return parsedHash{}, errHashFormat
	}
	if h.sum, err = base64.RawStdEncoding.DecodeString(parts[5]); err != nil || len(h.sum) < 16 || len(h.sum) > 64 {
		return parsedHash{}, errHashFormat
	}
	return h, nil
}

// checkPassword reports whether password matches the encoded hash, comparing in constant time.
func checkPassword(encoded, password string) (bool, Argon2, error) {
	h, err := parseHash(encoded)
	if err != nil {
		return false, Argon2{}, err
	}
	p := h.params
	sum := argon2.IDKey([]byte(password), h.salt, p.Iterations, p.Memory, p.Parallelism, uint32(len(h.sum)))
	return subtle.ConstantTimeCompare(sum, h.sum) == 1, p, nil
}

// hasher runs password hashes with a bound on how many run at once: each holds Memory KiB, and
// a flood of logins must not exhaust the server's memory.
type hasher struct {
	params Argon2
	sem    chan struct{}
}

func (h *hasher) acquire(ctx context.Context) error {
	select {
	case h.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *hasher) release() { <-h.sem }

// hash returns the encoded hash of password.
func (h *hasher) hash(ctx context.Context, password string) (string, error) {
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	defer h.release()
	return h.params.hashPassword(password)
}

// check reports whether password matches encoded, and whether the hash should be redone with
// the current cost.
func (h *hasher) check(ctx context.Context, encoded, password string) (ok, rehash bool, err error) {
	if err := h.acquire(ctx); err != nil {
		return false, false, err
	}
	defer h.release()
	ok, p, err := checkPassword(encoded, password)
	return ok, ok && p != h.params, err
}
