//go:build !linux

package capture

import (
	"errors"
	"time"
)

// Ring sizes of a live capture (Linux only).
const (
	RingBlockSize    = 1 << 20
	RingBlocks       = 32
	RingBlockTimeout = 100 * time.Millisecond
)

// OpenInterface captures live on Linux only; elsewhere it returns an error.
func OpenInterface(name string, filter *Filter) (Source, error) {
	return nil, errors.New("capture: live capture needs Linux (AF_PACKET)")
}
