package transport

import (
	"testing"
)

// TestHash128 pins the hash ETags are made of: its first half is XXH64 (the values of the
// reference implementation), and both halves are the same in every release, since nodes of
// two releases behind one load balancer must tag the same answer alike.
func TestHash128(t *testing.T) {
	t.Parallel()
	long := make([]byte, 100) // past 32 bytes: the four lanes
	for i := range long {
		long[i] = byte(i)
	}
	for _, tt := range []struct {
		in     []byte
		h1, h2 uint64
	}{
		{nil, 0xef46db3751d8e999, 0x04e4059f72dce45f},
		{[]byte("abc"), 0x44bc2cf5ad770999, 0x7db6fe0d719b05e2},
		{[]byte(`{"type":"result","result":[]}`), 0x2eedd60d1b3e2094, 0x86ef0c426fd5bf22},
		{long, 0x6ac1e58032166597, 0x2587fad7df7b01fa},
	} {
		if h1, h2 := hash128(tt.in); h1 != tt.h1 || h2 != tt.h2 {
			t.Errorf("hash128(%d bytes) = %#x %#x, want %#x %#x", len(tt.in), h1, h2, tt.h1, tt.h2)
		}
	}
}

// TestHash128Distinct: answers that differ by one bit, or by their length alone, get
// distinct tags, and distinct halves.
func TestHash128Distinct(t *testing.T) {
	t.Parallel()
	body := make([]byte, 2804)
	for i := range body {
		body[i] = byte(i * 7)
	}
	seen1, seen2 := map[uint64]int{}, map[uint64]int{}
	add := func(b []byte, what int) {
		h1, h2 := hash128(b)
		if o, ok := seen1[h1]; ok {
			t.Fatalf("case %d: the first half of case %d", what, o)
		}
		if o, ok := seen2[h2]; ok {
			t.Fatalf("case %d: the second half of case %d", what, o)
		}
		seen1[h1], seen2[h2] = what, what
	}
	for i := range len(body) * 8 {
		body[i/8] ^= 1 << (i % 8)
		add(body, i)
		body[i/8] ^= 1 << (i % 8)
	}
	for n := range 100 { // every length, and a body of zeros at each
		add(make([]byte, n), -1-n)
	}
}
