package bgp

import (
	"net/netip"
	"time"
)

// FullTable and LiveHeap serve the benchmarks of package bgp_test (fulltable_test.go).
var (
	FullTable = fullTable
	LiveHeap  = liveHeap
)

// SetDrainTime sets how long a session's end drains the router's connection, and returns what
// restores it; for a test that is not parallel.
func SetDrainTime(d time.Duration) func() {
	old := drainTime
	drainTime = d
	return func() { drainTime = old }
}

// JumpWrites is the number of entries of the IPv6 jump table of router's routes written since
// its table was made (-1: no such router).
func (s *Speaker) JumpWrites(router netip.Addr) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if r := s.routers[router]; r != nil {
		return r.v6.jumpWrites
	}
	return -1
}

// routerOf returns the router of addr, added when new as a session's valid OPEN adds it: a
// table for a test without sessions. Under s.mu.
func (s *Speaker) routerOf(addr netip.Addr) *router {
	r := s.routers[addr]
	if r == nil {
		r = &router{addr: addr, v4: newTrie(), v6: newTrie(), since: time.Now()}
		s.routers[addr] = r
		s.order = append(s.order, r)
	}
	return r
}

// MaxOpening is the bound of the connections from new addresses before their OPEN.
const MaxOpening = maxOpening
