package capture_test

import (
	"context"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/capture"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// readHTTP runs a probe over a capture file and returns its HTTP records, by path, and the
// table's counters.
func readHTTP(t *testing.T, file string, cfg capture.Config) (map[string]capture.Record, []capture.Record, capture.Stats) {
	t.Helper()
	src, err := capture.OpenFile(file)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var recs []capture.Record
	tbl := capture.NewTable(cfg, func(r capture.Record) {
		if r.Layer == records.LayerHTTP {
			recs = append(recs, r)
		}
	})
	if err := (&capture.Probe{Source: src, Table: tbl}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	byPath := map[string]capture.Record{}
	for _, r := range recs {
		byPath[r.HTTP.Path] = r
	}
	st := tbl.Stats()
	if st.HTTPRecords != uint64(len(recs)) {
		t.Errorf("Stats.HTTPRecords %d, %d records", st.HTTPRecords, len(recs))
	}
	return byPath, recs, st
}

// wantHTTP checks a record's keys and its srt and dtt (none when status is 0).
func wantHTTP(t *testing.T, recs map[string]capture.Record, path, method string, status uint16, host string, srt, dtt float64) capture.Record {
	t.Helper()
	r, ok := recs[path]
	if !ok {
		t.Errorf("no record of path %q among %v", path, recs)
		return r
	}
	if h := r.HTTP; h.Method != method || h.Status != status || h.Host != host {
		t.Errorf("%s: %s %d host %q, want %s %d %q", path, h.Method, h.Status, h.Host, method, status, host)
	}
	if r.Protocol != capture.ProtoTCP || r.Time%60 != 0 || r.Time == 0 || !r.Client.IP.IsValid() || r.Server.Port == 0 {
		t.Errorf("%s: time %d protocol %d endpoints %v:%d %v:%d", path, r.Time, r.Protocol, r.Client.IP, r.Client.Port, r.Server.IP, r.Server.Port)
	}
	if status == 0 {
		wantTiming(t, path+" srt", r.SRT)
		wantTiming(t, path+" dtt", r.DTT)
	} else {
		wantTiming(t, path+" srt", r.SRT, srt)
		wantTiming(t, path+" dtt", r.DTT, dtt)
	}
	return r
}

func TestHTTPKeepAlive(t *testing.T) {
	t.Parallel()
	recs, all, st := readHTTP(t, scapyPcap(t, "httpKeepAlive"), capture.Config{})
	if len(all) != 3 {
		t.Fatalf("%d records, want 3: %+v", len(all), all)
	}
	q1 := len("GET /api/users/42?x=1 HTTP/1.1\r\nHost: Shop.Example:8080\r\n\r\n")
	r1 := len("HTTP/1.1 200 OK\r\nContent-Length: 300\r\n\r\n") + 300
	r := wantHTTP(t, recs, "/api/users/{n}", "GET", 200, "shop.example", 0.150-0.100, 0.180-0.150)
	if r.Client.Bytes != uint64(q1) || r.Server.Bytes != uint64(r1) || r.Client.Packets != 1 || r.Server.Packets != 2 {
		t.Errorf("bytes %d/%d packets %d/%d, want %d/%d 1/2", r.Client.Bytes, r.Server.Bytes, r.Client.Packets, r.Server.Packets, q1, r1)
	}
	if r.Client.Port != 41000 || r.Server.Port != 8080 || r.Server.IP.String() != "10.8.0.2" || r.ServerName != "shop.example" {
		t.Errorf("endpoints %v:%d %v:%d name %q", r.Client.IP, r.Client.Port, r.Server.IP, r.Server.Port, r.ServerName)
	}
	// The request's last byte is its body's segment.
	r = wantHTTP(t, recs, "/orders/{id}", "POST", 201, "shop.example", 1.300-1.001, 0)
	if q2 := len("POST /orders/550e8400-e29b-41d4-a716-446655440000 HTTP/1.1\r\nHost: shop.example\r\nContent-Length: 20\r\n\r\n") + 20; r.Client.Bytes != uint64(q2) || r.Client.Packets != 2 {
		t.Errorf("POST: %d bytes in %d packets, want %d in 2", r.Client.Bytes, r.Client.Packets, q2)
	}
	wantHTTP(t, recs, "/static/app.js", "GET", 304, "shop.example", 2.020-2.000, 0)
	if st.HTTPUnanswered+st.HTTPOrphans+st.HTTPGivenUp != 0 || st.Records != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestHTTPPipelinedAndChunked(t *testing.T) {
	t.Parallel()
	recs, all, st := readHTTP(t, scapyPcap(t, "httpPipelined"), capture.Config{})
	if len(all) != 3 {
		t.Fatalf("%d records, want 3: %+v", len(all), all)
	}
	// Both requests ended at 0.100; the chunked response ends in the segment where the HEAD's
	// response begins and ends (its Content-Length announces no body).
	wantHTTP(t, recs, "/a", "GET", 200, "p.example", 0.200-0.100, 0.250-0.200)
	wantHTTP(t, recs, "/b/{id}", "HEAD", 200, "p.example", 0.250-0.100, 0)
	r := wantHTTP(t, recs, "/c", "GET", 200, "", 0.400-0.300, 0.420-0.400)
	if want := len("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n1") + len("0\r\n") + 16 + 2 + len("0\r\nTrailer: y\r\n\r\n"); r.Server.Bytes != uint64(want) || r.Server.Packets != 3 {
		t.Errorf("chunked response: %d bytes in %d packets, want %d in 3", r.Server.Bytes, r.Server.Packets, want)
	}
	if all[0].HTTP.Path != "/a" || all[1].HTTP.Path != "/b/{id}" {
		t.Errorf("records in the order %q, %q: want the requests' order", all[0].HTTP.Path, all[1].HTTP.Path)
	}
	if st.HTTPGivenUp != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestHTTPAcrossSegments(t *testing.T) {
	t.Parallel()
	recs, all, _ := readHTTP(t, scapyPcap(t, "httpSegments"), capture.Config{})
	if len(all) != 3 {
		t.Fatalf("%d records, want 3: %+v", len(all), all)
	}
	r := wantHTTP(t, recs, "/search", "GET", 404, "2001:db8::1", 0.200-0.120, 0)
	if r.Client.Packets != 3 {
		t.Errorf("request in %d packets, want 3", r.Client.Packets)
	}
	// An absolute target names the host, whatever the Host header says.
	wantHTTP(t, recs, "/a/b", "GET", 502, "proxy.example", 0.600-0.500, 0)
	// 100 Continue is no answer: srt runs from the body to the final response.
	wantHTTP(t, recs, "/upload", "PUT", 200, "up.example", 1.050-1.020, 0)
}

func TestHTTPUnanswered(t *testing.T) {
	t.Parallel()
	recs, all, st := readHTTP(t, scapyPcap(t, "httpNoAnswer"), capture.Config{})
	if len(all) != 3 {
		t.Fatalf("%d records, want 3: %+v", len(all), all)
	}
	wantHTTP(t, recs, "/slow", "GET", 0, "slow.example", 0, 0) // reset
	wantHTTP(t, recs, "/never", "GET", 0, "slow.example", 0, 0)
	// Without a length the response ends with the connection: dtt to its last data.
	r := wantHTTP(t, recs, "/old", "GET", 200, "", 0.400-0.300, 0.500-0.400)
	if r.Server.Bytes != uint64(len("HTTP/1.0 200 OK\r\n\r\n")+1000) {
		t.Errorf("close-delimited response of %d bytes", r.Server.Bytes)
	}
	if st.HTTPUnanswered != 2 {
		t.Errorf("%d unanswered, want 2", st.HTTPUnanswered)
	}
}

func TestHTTPOrphanResponse(t *testing.T) {
	t.Parallel()
	recs, all, st := readHTTP(t, scapyPcap(t, "httpOrphan"), capture.Config{})
	if len(all) != 1 || st.HTTPOrphans != 1 {
		t.Fatalf("%d records, %d orphan responses; want 1 and 1", len(all), st.HTTPOrphans)
	}
	wantHTTP(t, recs, "/next", "GET", 200, "o.example", 1.010-1.000, 0)
}

func TestHTTPGaps(t *testing.T) {
	t.Parallel()
	recs, all, st := readHTTP(t, scapyPcap(t, "httpGaps"), capture.Config{})
	if len(all) != 3 {
		t.Fatalf("%d records, want 3: %+v", len(all), all)
	}
	// Bytes lost in a body of known length are passed over, and counted.
	r := wantHTTP(t, recs, "/big", "GET", 200, "g.example", 0.200-0.100, 0.300-0.200)
	if want := len("HTTP/1.1 200 OK\r\nContent-Length: 3000\r\n\r\n") + 3000; r.Server.Bytes != uint64(want) {
		t.Errorf("response of %d bytes, want %d", r.Server.Bytes, want)
	}
	wantHTTP(t, recs, "/two", "GET", 200, "g.example", 0.100, 0)
	// The request whose start was lost gives the connection up (its response is then one to
	// no request seen); the next request line takes it up again.
	wantHTTP(t, recs, "/after", "GET", 200, "g.example", 0.100, 0)
	if st.HTTPGaps != 1 || st.HTTPGivenUp != 1 || st.HTTPOrphans != 1 {
		t.Errorf("gaps %d given up %d orphans %d, want 1 1 1", st.HTTPGaps, st.HTTPGivenUp, st.HTTPOrphans)
	}
}

func TestHTTPBounds(t *testing.T) {
	t.Parallel()
	// A header block past HTTPMaxHeader gives its message up; so does a request past
	// HTTPMaxPipeline waiting (all of its connection's requests are dropped). HTTPMaxPipeline
	// requests waiting are followed: each becomes a record without a response.
	recs, all, st := readHTTP(t, scapyPcap(t, "httpBounds"), capture.Config{})
	if len(all) != capture.HTTPMaxPipeline || st.HTTPUnanswered != capture.HTTPMaxPipeline {
		t.Fatalf("%d records, %d unanswered; want %d", len(all), st.HTTPUnanswered, capture.HTTPMaxPipeline)
	}
	for _, r := range recs {
		if r.Client.Port != 41010 {
			t.Errorf("a record of client port %d", r.Client.Port)
		}
	}
	if st.HTTPTooLong != 1 || st.HTTPGivenUp != 2 {
		t.Errorf("too long %d given up %d, want 1 and 2", st.HTTPTooLong, st.HTTPGivenUp)
	}
	// Paths past Config.MaxHTTPPaths an hour read HTTPOther.
	_, all, st = readHTTP(t, scapyPcap(t, "httpKeepAlive"), capture.Config{MaxHTTPPaths: 2})
	if len(all) != 3 || all[2].HTTP.Path != capture.HTTPOther || all[1].HTTP.Path != "/orders/{id}" || st.HTTPPathsLeftOut != 1 {
		t.Errorf("records %+v, %d paths left out", all, st.HTTPPathsLeftOut)
	}
}
