package app_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/app"
	"github.com/fnapi/fnapi/examples/dataservice/inlet"
	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestCollectorStatus runs the service with -netflow and -sflow, has softflowd export a
// capture as NetFlow v9 and pmacctd as sFlow v5 (both from 127.0.0.1: one exporter), and checks
// that collector-status answers that exporter with both protocols and the flows of each, over
// HTTPS and over the WebSocket, with an API key; and that it needs a token and API 1.2.
func TestCollectorStatus(t *testing.T) {
	t.Parallel()
	testenv.Need(t, "softflowd", "softflowd")
	testenv.Need(t, "pmacctd", "pmacct")
	s, a := startWith(t, app.Config{Inlet: inlet.Configuration{NetFlow: "127.0.0.1:0", SFlow: "127.0.0.1:0"}})
	nf, sf := a.FlowAddrs()
	const packets = 20
	pcap, _ := testenv.Conversation(t, time.Now().Add(-time.Minute).Truncate(time.Second), packets)
	sent := time.Now()
	testenv.Softflowd(t, pcap, nf, 9)
	testenv.Pmacctd(t, pcap, sf)
	const flows = 2 + packets // softflowd: one flow per direction; pmacctd: a sample per packet

	ctx := context.Background()
	opts := []client.Option{client.WithAPIKey(s.key), client.WithDeclaredVersions()}
	https := s.http(t, opts...)
	var st api.CollectorStatusResult
	testutil.Until(t, testutil.Wait, "every flow counted", func() error {
		var err error
		if st, err = client.Call(ctx, https, api.CollectorStatus, decl.None{}); err != nil {
			t.Fatal(err)
		}
		if st.Totals.Flows != flows {
			return fmt.Errorf("%d flows", st.Totals.Flows)
		}
		return nil
	})
	answered := time.Now()
	if !st.Enabled || !slices.Equal(st.Listen, []api.CollectorSocket{{Protocol: "netflow", Address: nf}, {Protocol: "sflow", Address: sf}}) ||
		st.MaxExporters != 1000 || len(st.Exporters) != 1 {
		t.Fatalf("collector-status answered %+v", st)
	}
	e := st.Exporters[0]
	if e.Address != "127.0.0.1" || !slices.Equal(e.Protocols, []string{"netflow-v9", "sflow-v5"}) || e.Flows != flows ||
		e.Datagrams < 2 || e.Templates < 1 || e.DecodeErrors != 0 || e.Dropped != 0 || e.RecordsInvalid != 0 {
		t.Errorf("exporter %+v", e)
	}
	if e.FirstSeen.Before(sent.Add(-time.Second)) || e.LastSeen.Before(e.FirstSeen) || e.LastSeen.After(answered) {
		t.Errorf("exporter first seen %v, last seen %v; sent from %v, answered at %v", e.FirstSeen, e.LastSeen, sent, answered)
	}
	// Every flow arrived within the last minute, unless this machine took a minute to answer.
	if e.FlowsPerSecond <= 0 && answered.Sub(sent) < 50*time.Second {
		t.Errorf("exporter's flows per second %v", e.FlowsPerSecond)
	}
	if tot := st.Totals; tot.Exporters != 1 || tot.Datagrams != e.Datagrams || tot.FlowsPerSecond != e.FlowsPerSecond || tot.RecordsStored == 0 {
		t.Errorf("totals %+v", tot)
	}

	// The WebSocket answers the same counters (records may still be being stored: never fewer).
	ws, err := client.Call(ctx, s.ws(t, "/api/ws", opts...), api.CollectorStatus, decl.None{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.Exporters) != 1 || ws.Exporters[0].Flows != flows || ws.Exporters[0].Datagrams != e.Datagrams || ws.Totals.RecordsStored < st.Totals.RecordsStored {
		t.Errorf("over the WebSocket: %+v", ws)
	}

	if err := s.http(t).Call(ctx, "collector-status", nil, nil); code(err) != apierr.AuthenticationNeeded.Code() {
		t.Errorf("collector-status without a token: %v", err)
	}
	v11 := s.http(t, client.WithAPIKey(s.key), client.WithVersion("1.1"))
	if err := v11.Call(ctx, "collector-status", nil, nil); code(err) != apierr.UnknownFunction.Code() {
		t.Errorf("collector-status at 1.1: %v", err)
	}
}
