package transport

import (
	"encoding/binary"
	"math/bits"
)

// The primes of XXH64 (github.com/Cyan4973/xxHash, xxhash_spec.md).
const (
	prime1 uint64 = 11400714785074694791
	prime2 uint64 = 14029467366897019727
	prime3 uint64 = 1609587929392839161
	prime4 uint64 = 9650029242287828579
	prime5 uint64 = 2870177450012600261
)

// hash128 is the 128 bits an ETag names: the XXH64 of b (seed 0), and a second 64 bits
// from the same four lanes, merged in another order and finished with other constants, so
// that the pair is one pass over b. It is fixed (no seed per process: every node and every
// release tags the same bytes alike) and not cryptographic (see etag.go for why that is
// enough).
func hash128(b []byte) (uint64, uint64) {
	n := uint64(len(b))
	var h1, h2 uint64
	if len(b) >= 32 {
		var seed uint64 // 0, a variable: the sums below wrap as XXH64's do
		v1, v2, v3, v4 := seed+prime1+prime2, seed+prime2, seed, seed-prime1
		for ; len(b) >= 32; b = b[32:] {
			v1 = round(v1, binary.LittleEndian.Uint64(b))
			v2 = round(v2, binary.LittleEndian.Uint64(b[8:]))
			v3 = round(v3, binary.LittleEndian.Uint64(b[16:]))
			v4 = round(v4, binary.LittleEndian.Uint64(b[24:]))
		}
		h1 = bits.RotateLeft64(v1, 1) + bits.RotateLeft64(v2, 7) + bits.RotateLeft64(v3, 12) + bits.RotateLeft64(v4, 18)
		h2 = bits.RotateLeft64(v3, 1) + bits.RotateLeft64(v4, 7) + bits.RotateLeft64(v1, 12) + bits.RotateLeft64(v2, 18)
		h1 = merge(merge(merge(merge(h1, v1), v2), v3), v4)
		h2 = merge(merge(merge(merge(h2^prime3, v4), v3), v2), v1)
	} else {
		h1, h2 = prime5, prime4
	}
	h1 += n
	h2 += n
	for ; len(b) >= 8; b = b[8:] {
		k := binary.LittleEndian.Uint64(b)
		h1 ^= round(0, k)
		h1 = bits.RotateLeft64(h1, 27)*prime1 + prime4
		h2 ^= round(prime3, k)
		h2 = bits.RotateLeft64(h2, 29)*prime2 + prime5
	}
	if len(b) >= 4 {
		k := uint64(binary.LittleEndian.Uint32(b))
		h1 ^= k * prime1
		h1 = bits.RotateLeft64(h1, 23)*prime2 + prime3
		h2 ^= k * prime2
		h2 = bits.RotateLeft64(h2, 19)*prime1 + prime4
		b = b[4:]
	}
	for _, c := range b {
		h1 ^= uint64(c) * prime5
		h1 = bits.RotateLeft64(h1, 11) * prime1
		h2 ^= uint64(c) * prime3
		h2 = bits.RotateLeft64(h2, 13) * prime2
	}
	return avalanche(h1), avalanche(h2 ^ h1>>32)
}

func round(acc, input uint64) uint64 {
	return bits.RotateLeft64(acc+input*prime2, 31) * prime1
}

func merge(acc, v uint64) uint64 {
	return (acc^round(0, v))*prime1 + prime4
}

func avalanche(h uint64) uint64 {
	h ^= h >> 33
	h *= prime2
	h ^= h >> 29
	h *= prime3
	return h ^ h>>32
}
