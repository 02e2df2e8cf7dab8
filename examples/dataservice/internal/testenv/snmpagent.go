package testenv

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gosnmp/gosnmp"
)

// SNMPAgent is a small SNMPv2c agent written for the tests, for what Debian's snmpd does not
// answer: hostile values (names that are not UTF-8, 30 KB long, holding line breaks or U+202E)
// and walks that never end. It answers GET, GETNEXT and GETBULK from its table, and counts
// the requests it receives.
type SNMPAgent struct {
	Port int

	conn      net.PacketConn
	community string
	endless   bool
	requests  atomic.Int64

	mu     sync.Mutex
	oids   []string // the table's, in order
	values map[string]gosnmp.SnmpPDU
	before []byte
}

// The OIDs of what the service polls (SNMPv2-MIB sysName; IF-MIB ifName, ifAlias and
// ifHighSpeed, each followed by an interface index).
const (
	OIDSysName     = ".1.3.6.1.2.1.1.5.0"
	OIDIfName      = ".1.3.6.1.2.1.31.1.1.1.1."
	OIDIfAlias     = ".1.3.6.1.2.1.31.1.1.1.18."
	OIDIfHighSpeed = ".1.3.6.1.2.1.31.1.1.1.15."
)

// SNMPHostileValues are the names a hostile device answers, for StartSNMPAgent: a sysName
// that is not UTF-8 and holds a line break, a 30 KB ifName, a 32 KB ifAlias of lines, an
// ifName with U+202E and NUL padding, an ifAlias with a C1 control, an isolate and a cut
// character.
func SNMPHostileValues() map[string]any {
	return map[string]any{
		OIDSysName:           []byte("edge\xff\xfe-1\r\nState: resolved"),
		OIDIfName + "1":      []byte(strings.Repeat("é", 15_000)),
		OIDIfAlias + "1":     []byte(strings.Repeat("uplink\r\n", 4_000)),
		OIDIfHighSpeed + "1": uint32(10_000),
		OIDIfName + "2":      []byte("ge-0/0/2\u202egnp.exe\x00\x00"),
		OIDIfAlias + "2":     []byte("\xc2\x85to\u2066 core\xc3"),
	}
}

// StartSNMPAgent starts an agent (stopped at the end of the test) on a free UDP port of host
// (a loopback address: "127.0.0.1", or "127.0.0.2" for a second device), answering community.
// values maps OIDs (".1.3.6.1.2.1.1.5.0") to their value: a []byte is an OCTET STRING, a
// uint32 a Gauge32. With endless, GETNEXT and GETBULK are answered from no table but with
// the rows that follow the OID asked for, each "endless-N", without end: a walk of any column
// never ends, its OIDs increasing.
func StartSNMPAgent(t testing.TB, host, community string, values map[string]any, endless bool) *SNMPAgent {
	t.Helper()
	conn, err := net.ListenPacket("udp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	a := &SNMPAgent{Port: conn.LocalAddr().(*net.UDPAddr).Port, conn: conn, community: community, endless: endless}
	a.Set(values, nil)
	done := make(chan struct{})
	go func() { defer close(done); a.serve() }()
	t.Cleanup(func() { conn.Close(); <-done })
	return a
}

// Set replaces the agent's table (values as for StartSNMPAgent) and, when before is not
// empty, has the agent send it as a datagram of its own before each answer: what a client
// must read past, as a late or forged datagram.
func (a *SNMPAgent) Set(values map[string]any, before []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.oids, a.values, a.before = nil, map[string]gosnmp.SnmpPDU{}, before
	for oid, v := range values {
		pdu := gosnmp.SnmpPDU{Name: oid, Type: gosnmp.OctetString, Value: v}
		if _, ok := v.(uint32); ok {
			pdu.Type = gosnmp.Gauge32
		}
		a.values[oid] = pdu
		a.oids = append(a.oids, oid)
	}
	slices.SortFunc(a.oids, compareOIDs)
}

// Requests returns how many requests the agent received.
func (a *SNMPAgent) Requests() int64 { return a.requests.Load() }

func (a *SNMPAgent) serve() {
	buf := make([]byte, 65535)
	dec := &gosnmp.GoSNMP{Version: gosnmp.Version2c, Community: a.community}
	for {
		n, from, err := a.conn.ReadFrom(buf)
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			continue
		}
		a.requests.Add(1)
		req, err := dec.SnmpDecodePacket(buf[:n])
		if err != nil || req.Community != a.community || len(req.Variables) == 0 {
			continue
		}
		a.mu.Lock()
		resp := &gosnmp.SnmpPacket{Version: gosnmp.Version2c, Community: a.community, PDUType: gosnmp.GetResponse,
			RequestID: req.RequestID, Variables: a.answer(req)}
		before := a.before
		a.mu.Unlock()
		out, err := resp.MarshalMsg()
		if err != nil {
			panic(fmt.Sprintf("testenv: the SNMP agent's answer: %v", err))
		}
		if len(before) > 0 {
			a.conn.WriteTo(before, from)
		}
		a.conn.WriteTo(out, from)
	}
}

// answer returns the variables answering req: the value of each OID asked for (GET), or the
// rows following the first (GETNEXT one, GETBULK up to its max-repetitions and about 60 KB).
func (a *SNMPAgent) answer(req *gosnmp.SnmpPacket) []gosnmp.SnmpPDU {
	oid := req.Variables[0].Name
	switch req.PDUType {
	case gosnmp.GetRequest:
		var out []gosnmp.SnmpPDU
		for _, v := range req.Variables {
			pdu, ok := a.values[v.Name]
			if !ok {
				pdu = gosnmp.SnmpPDU{Name: v.Name, Type: gosnmp.NoSuchObject}
			}
			out = append(out, pdu)
		}
		return out
	case gosnmp.GetNextRequest:
		return []gosnmp.SnmpPDU{a.next(oid)}
	}
	var out []gosnmp.SnmpPDU
	size := 0
	for range max(req.MaxRepetitions, 1) {
		pdu := a.next(oid)
		if b, ok := pdu.Value.([]byte); ok {
			size += len(b)
		}
		if len(out) > 0 && size > 60_000 {
			break
		}
		out = append(out, pdu)
		if pdu.Type == gosnmp.EndOfMibView {
			break
		}
		oid = pdu.Name
	}
	return out
}

// next returns the row after oid.
func (a *SNMPAgent) next(oid string) gosnmp.SnmpPDU {
	if a.endless {
		// Under a column (11 arcs for IF-MIB's ifXTable) the first row is .1, then each
		// row's last arc grows by one.
		arcs := strings.Split(strings.TrimPrefix(oid, "."), ".")
		if len(arcs) < 12 {
			oid += ".1"
		} else {
			n, _ := strconv.ParseUint(arcs[len(arcs)-1], 10, 32)
			oid = "." + strings.Join(arcs[:len(arcs)-1], ".") + "." + strconv.FormatUint(n+1, 10)
		}
		return gosnmp.SnmpPDU{Name: oid, Type: gosnmp.OctetString, Value: []byte("endless-" + oid[strings.LastIndexByte(oid, '.')+1:])}
	}
	i, found := slices.BinarySearchFunc(a.oids, oid, compareOIDs)
	if found {
		i++
	}
	if i == len(a.oids) {
		return gosnmp.SnmpPDU{Name: oid, Type: gosnmp.EndOfMibView}
	}
	return a.values[a.oids[i]]
}

// compareOIDs orders OIDs arc by arc, as numbers.
func compareOIDs(x, y string) int {
	xs, ys := strings.Split(strings.TrimPrefix(x, "."), "."), strings.Split(strings.TrimPrefix(y, "."), ".")
	for i := 0; i < len(xs) && i < len(ys); i++ {
		a, _ := strconv.ParseUint(xs[i], 10, 64)
		b, _ := strconv.ParseUint(ys[i], 10, 64)
		if a != b {
			if a < b {
				return -1
			}
			return 1
		}
	}
	return len(xs) - len(ys)
}
