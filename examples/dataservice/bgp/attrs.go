package bgp

import (
	"encoding/binary"
	"strconv"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// interned holds each distinct (AS path, communities) once: a full table's 1.2M routes share a
// few hundred thousand of them, and a route in a trie is the 4-byte index of its set. A set is
// released when the last route using it goes. Each set's bytes (cost) are charged to a counter
// of the router that sent it first, until it is released. Not safe for concurrent use.
type interned struct {
	index  map[string]uint32 // the set's encoding (attrKey) → its index
	routes []*Route          // index → the set; [0] is unused
	keys   []string
	refs   []uint32
	owners []*int   // the counter each set's cost is charged to
	costs  []uint32 // and that cost
	free   []uint32
}

func newInterned() *interned {
	return &interned{index: map[string]uint32{}, routes: []*Route{nil}, keys: []string{""}, refs: []uint32{0}, owners: []*int{nil}, costs: []uint32{0}}
}

// attrKey appends the encoding of the attributes a Route keeps: the AS path's numbers (AS_SEQUENCE
// and AS_SET segments in order, confederation segments left out since they are the router's
// own), the communities and the large communities, each list after its length.
func attrKey(buf []byte, attrs []gobgp.PathAttributeInterface) []byte {
	var path *gobgp.PathAttributeAsPath
	var comms *gobgp.PathAttributeCommunities
	var large *gobgp.PathAttributeLargeCommunities
	for _, a := range attrs {
		switch a := a.(type) {
		case *gobgp.PathAttributeAsPath:
			path = a
		case *gobgp.PathAttributeCommunities:
			comms = a
		case *gobgp.PathAttributeLargeCommunities:
			large = a
		}
	}
	n := 0
	if path != nil {
		for _, seg := range path.Value {
			if t := seg.GetType(); t == gobgp.BGP_ASPATH_ATTR_TYPE_SEQ || t == gobgp.BGP_ASPATH_ATTR_TYPE_SET {
				n += len(seg.GetAS())
			}
		}
	}
	buf = binary.BigEndian.AppendUint32(buf, uint32(n))
	if path != nil {
		for _, seg := range path.Value {
			if t := seg.GetType(); t == gobgp.BGP_ASPATH_ATTR_TYPE_SEQ || t == gobgp.BGP_ASPATH_ATTR_TYPE_SET {
				for _, as := range seg.GetAS() {
					buf = binary.BigEndian.AppendUint32(buf, as)
				}
			}
		}
	}
	if comms == nil {
		buf = binary.BigEndian.AppendUint32(buf, 0)
	} else {
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(comms.Value)))
		for _, c := range comms.Value {
			buf = binary.BigEndian.AppendUint32(buf, c)
		}
	}
	if large == nil {
		buf = binary.BigEndian.AppendUint32(buf, 0)
	} else {
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(large.Values)))
		for _, c := range large.Values {
			buf = binary.BigEndian.AppendUint32(buf, c.ASN)
			buf = binary.BigEndian.AppendUint32(buf, c.LocalData1)
			buf = binary.BigEndian.AppendUint32(buf, c.LocalData2)
		}
	}
	return buf
}

// routeOf builds the Route an attrKey encodes.
func routeOf(k []byte) *Route {
	next := func() uint32 {
		v := binary.BigEndian.Uint32(k)
		k = k[4:]
		return v
	}
	r := &Route{ASPath: make([]uint32, next())}
	for i := range r.ASPath {
		r.ASPath[i] = next()
	}
	nc := next()
	r.Communities = make([]string, 0, int(nc)+len(k)/12)
	for range nc {
		c := next()
		r.Communities = append(r.Communities, strconv.Itoa(int(c>>16))+":"+strconv.Itoa(int(c&0xffff)))
	}
	for range next() {
		a, b, c := next(), next(), next()
		r.Communities = append(r.Communities, strconv.FormatUint(uint64(a), 10)+":"+strconv.FormatUint(uint64(b), 10)+":"+strconv.FormatUint(uint64(c), 10))
	}
	if len(r.ASPath) == 0 {
		r.ASPath = nil
	}
	if len(r.Communities) == 0 {
		r.Communities = nil
	}
	return r
}

// setOverhead is what a set costs beyond its key and its lists' contents: the Route and its
// slices' headers, the map entry, the index's slices.
const setOverhead = 160

// cost is the bytes a set holds (an estimate of its heap, Go's size classes aside).
func cost(k string, r *Route) int {
	n := setOverhead + len(k) + 4*len(r.ASPath)
	for _, c := range r.Communities {
		n += 16 + len(c)
	}
	return n
}

// get returns the index of a set, adding it (its cost charged to *owner) or taking one more
// reference.
func (in *interned) get(k []byte, owner *int) uint32 {
	if i, ok := in.index[string(k)]; ok {
		in.refs[i]++
		return i
	}
	s := string(k)
	r := routeOf(k)
	c := cost(s, r)
	var i uint32
	if n := len(in.free); n > 0 {
		i = in.free[n-1]
		in.free = in.free[:n-1]
		in.routes[i], in.keys[i], in.refs[i], in.owners[i], in.costs[i] = r, s, 1, owner, uint32(c)
	} else {
		i = uint32(len(in.routes))
		in.routes = append(in.routes, r)
		in.keys = append(in.keys, s)
		in.refs = append(in.refs, 1)
		in.owners = append(in.owners, owner)
		in.costs = append(in.costs, uint32(c))
	}
	*owner += c
	in.index[s] = i
	return i
}

// release drops one reference to a set, forgetting it with the last.
func (in *interned) release(i uint32) {
	if i == 0 {
		return
	}
	if in.refs[i]--; in.refs[i] > 0 {
		return
	}
	*in.owners[i] -= int(in.costs[i])
	delete(in.index, in.keys[i])
	in.routes[i], in.keys[i], in.owners[i] = nil, "", nil
	in.free = append(in.free, i)
}
