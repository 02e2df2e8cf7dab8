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

// TestCaptureLayersStatus reads, with -capture-file, an HTTP request, a DNS query and a TLS
// ClientHello, none answered: collector-status counts each layer's record and what the probe
// could tell of it (a request without a response, a query timed out), as /metrics does.
func TestCaptureLayersStatus(t *testing.T) {
	t.Parallel()
	t0 := time.Now().Add(-time.Hour).Truncate(time.Minute)
	cl, web, dns := netip.MustParseAddr("10.7.0.1"), netip.MustParseAddr("10.7.0.2"), netip.MustParseAddr("10.7.0.3")
	query := []byte{0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, // id, RD, one question
		7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0, 0, 1, 0, 1} // example.com A IN
	pkts := []testenv.Packet{
		{Time: t0, Src: cl, Dst: web, Protocol: 6, SrcPort: 40000, DstPort: 80, Data: []byte("GET /a HTTP/1.1\r\nHost: example.com\r\n\r\n")},
		{Time: t0.Add(time.Millisecond), Src: cl, Dst: dns, Protocol: 17, SrcPort: 40001, DstPort: 53, Data: query},
		{Time: t0.Add(2 * time.Millisecond), Src: cl, Dst: web, Protocol: 6, SrcPort: 40002, DstPort: 443,
			Data: testenv.ClientHellos(t, []string{"example.com"})[0]},
	}
	dir := t.TempDir()
	pcap := filepath.Join(dir, "layers.pcap")
	testenv.WritePcap(t, pcap, pkts)
	c, stop := openAsAdmin(t, app.Config{DataDir: dir, Inlet: inlet.Configuration{CaptureFile: pcap}})
	defer stop()
	var cs *api.CaptureStatus
	testutil.Until(t, testutil.Wait, "the capture file read", func() error {
		st, err := client.Call(context.Background(), c, api.CollectorStatus, decl.None{})
		if err != nil {
			return err
		}
		if cs = st.Capture; cs == nil || cs.Finished != 1 {
			return fmt.Errorf("capture %+v", st.Capture)
		}
		return nil
	})
	if want := (api.CaptureHTTP{Records: 1, Unanswered: 1}); cs.HTTP != want {
		t.Errorf("http %+v, want %+v", cs.HTTP, want)
	}
	if want := (api.CaptureDNS{Records: 1, Timeouts: 1}); cs.DNS != want {
		t.Errorf("dns %+v, want %+v", cs.DNS, want)
	}
	if want := (api.CaptureTLS{Records: 1}); cs.TLS != want {
		t.Errorf("tls %+v, want %+v", cs.TLS, want)
	}
}
