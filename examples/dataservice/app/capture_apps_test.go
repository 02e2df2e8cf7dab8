package app_test

import (
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/inlet"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestCaptureApplicationsBounded reads, with -capture-file, TLS ClientHellos of 1,000 distinct
// server names, each from a new client port, to a port without a built-in name: traffic BY
// application answers one application (unknown), not one per name, and the names stay in
// server.name.
func TestCaptureApplicationsBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const n = 1000
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("h%05d.example", i)
	}
	hellos := testenv.ClientHellos(t, names)
	t0 := time.Now().Add(-time.Hour).Truncate(time.Minute)
	cl, sv := netip.MustParseAddr("10.6.0.1"), netip.MustParseAddr("10.6.0.2")
	var pkts []testenv.Packet
	for i := range n {
		pkts = append(pkts, testenv.Packet{Time: t0.Add(time.Duration(i) * time.Millisecond), Src: cl, Dst: sv,
			Protocol: 6, SrcPort: 20000 + uint16(i), DstPort: 9443, Data: hellos[i]})
	}
	dir := t.TempDir()
	pcap := filepath.Join(dir, "hellos.pcap")
	testenv.WritePcap(t, pcap, pkts)
	c, stop := openAsAdmin(t, app.Config{DataDir: dir, Inlet: inlet.Configuration{CaptureFile: pcap}})
	defer stop()
	testutil.Until(t, testutil.Wait, "the capture file stored", func() error {
		st, err := client.Call(ctx, c, api.CollectorStatus, decl.None{})
		if err != nil {
			return err
		}
		// Each hello: its conversation's record and its handshake's (FROM tls).
		if cs := st.Capture; cs == nil || cs.Finished != 1 || cs.Stored != 2*n {
			return fmt.Errorf("capture %+v", st.Capture)
		}
		return nil
	})
	period := fmt.Sprintf(" SINCE %d UNTIL %d", t0.Unix(), t0.Unix()+60)
	for expr, want := range map[string]int{"traffic BY application": 1, "records BY server.name": n} {
		var keys []string
		for chunk, err := range client.Stream(ctx, c, api.Query, api.QueryArgs{Expr: expr + period}) {
			if err != nil {
				t.Fatalf("%s: %v", expr, err)
			}
			keys = nil
			for _, row := range chunk.Result[0].Data {
				keys = append(keys, fmt.Sprint(row.Keys...))
			}
		}
		if len(keys) != want || expr == "traffic BY application" && keys[0] != "unknown" {
			t.Errorf("%s: %d groups (%q...), want %d", expr, len(keys), keys[:min(len(keys), 3)], want)
		}
	}
}
