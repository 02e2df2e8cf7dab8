package capture_test

import (
	"fmt"
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// TestServerNamesBounded sends, through the probe, TLS ClientHellos of distinct server names,
// each from a new client port: the records of one hour carry at most MaxServerNames names,
// those past it none (counted), and the next hour has room again.
func TestServerNamesBounded(t *testing.T) {
	t.Parallel()
	const max = 50
	names := make([]string, max+2)
	for i := range names {
		names[i] = fmt.Sprintf("h%05d.example", i)
	}
	hellos := testenv.ClientHellos(t, names)
	hour := time.Unix(1700002800, 0) // an hour's start
	cl, sv := netip.MustParseAddr("10.6.0.1"), netip.MustParseAddr("10.6.0.2")
	var pkts []testenv.Packet
	for i := range max + 1 { // one past the bound in the first hour
		pkts = append(pkts, testenv.Packet{Time: hour.Add(time.Duration(i) * time.Millisecond), Src: cl, Dst: sv,
			Protocol: 6, SrcPort: 40000 + uint16(i), DstPort: 9443, Data: hellos[i]})
	}
	pkts = append(pkts, testenv.Packet{Time: hour.Add(time.Hour), Src: cl, Dst: sv, Protocol: 6, SrcPort: 50000,
		DstPort: 9443, Data: hellos[max+1]}) // the next hour
	path := filepath.Join(t.TempDir(), "hellos.pcap")
	testenv.WritePcap(t, path, pkts)
	recs, tbl := readRecords(t, path, capture.Config{MaxServerNames: max})
	named := map[int64]map[string]bool{}
	unnamed := 0
	for _, r := range recs {
		if r.Layer != records.LayerTransport {
			continue // each hello's TLS record too, named as its conversation
		}
		if r.ServerName == "" {
			unnamed++
			continue
		}
		h := r.Time / 3600
		if named[h] == nil {
			named[h] = map[string]bool{}
		}
		named[h][r.ServerName] = true
	}
	h := hour.Unix() / 3600
	if len(named[h]) != max || len(named[h+1]) != 1 || !named[h+1][names[max+1]] || unnamed != 1 {
		t.Errorf("%d names in the first hour, %v in the next, %d records without; want %d, %s, 1",
			len(named[h]), named[h+1], unnamed, max, names[max+1])
	}
	if s := tbl.Stats(); s.NamesLeftOut != 2 || s.TLSRecords != max+2 {
		t.Errorf("%d names left out (the transport's and the TLS record's), %d TLS records; want 2, %d", s.NamesLeftOut, s.TLSRecords, max+2)
	}
}
