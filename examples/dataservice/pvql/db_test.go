package pvql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// rec is a traffic record as the tests generate it and the reference computation reads it.
type rec struct {
	time             int64
	proto            uint8
	app              string
	cIP, sIP         netip.Addr
	cPort, sPort     uint16
	cBytes, cPackets uint64
	sBytes, sPackets uint64
}

// openDB opens an in-memory DuckDB with the records table holding recs.
func openDB(tb testing.TB, recs []rec) *sql.DB {
	tb.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	if _, err := db.Exec(records.Schema); err != nil {
		tb.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		a, err := duckdb.NewAppenderFromConn(dc.(driver.Conn), "", "records")
		if err != nil {
			return err
		}
		for _, r := range recs {
			cHi, cLo := records.Halves(r.cIP)
			sHi, sLo := records.Halves(r.sIP)
			if err := a.AppendRow(r.time, r.proto, r.app, cHi, cLo, r.cPort, r.cBytes, r.cPackets,
				sHi, sLo, r.sPort, r.sBytes, r.sPackets); err != nil {
				a.Close()
				return err
			}
		}
		return a.Close()
	})
	if err != nil {
		tb.Fatal(err)
	}
	return db
}

// Address pools: IPv4 (stored mapped), IPv6 with a low and a high first half (above
// math.MaxInt64, which exercises unsigned parameters).
var (
	testClients = addrs("10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.9", "10.0.0.17", "10.1.2.3",
		"192.168.1.10", "192.168.1.11", "2001:db8::1", "2001:db8::2", "2001:db8::5", "fd00::1")
	testServers = addrs("93.184.216.34", "8.8.8.8", "1.1.1.1", "10.0.0.2", "2001:db8:ffff::1", "fd00::53", "ff02::1")
	testApps    = []string{"https", "http", "dns", "ssh", "ntp", "unknown"}
)

func addrs(s ...string) []netip.Addr {
	out := make([]netip.Addr, len(s))
	for i, a := range s {
		out[i] = netip.MustParseAddr(a)
	}
	return out
}

// genRecords makes n records with times in [from, to), drawn from small pools so that
// groups collide. ICMP records have a silent server (zero server bytes and packets), which
// gives divisions by zero.
func genRecords(seed uint64, n int, from, to int64) []rec {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	protos := []uint8{records.TCP, records.TCP, records.TCP, records.UDP, records.UDP, records.ICMP, 47}
	out := make([]rec, n)
	for i := range out {
		r := rec{
			time:     from + rng.Int64N(to-from),
			proto:    protos[rng.IntN(len(protos))],
			app:      testApps[rng.IntN(len(testApps))],
			cIP:      testClients[rng.IntN(len(testClients))],
			sIP:      testServers[rng.IntN(len(testServers))],
			cPort:    uint16(1024 + rng.IntN(8)),
			sPort:    []uint16{22, 53, 80, 123, 443, 8080}[rng.IntN(6)],
			cBytes:   rng.Uint64N(100_000),
			cPackets: rng.Uint64N(100),
			sBytes:   rng.Uint64N(1_000_000),
			sPackets: 1 + rng.Uint64N(1000),
		}
		if r.proto == records.ICMP {
			r.sBytes, r.sPackets = 0, 0
		}
		out[i] = r
	}
	return out
}
