package pvql

import (
	"context"
	"net/netip"
	"reflect"
	"testing"
	"time"
)

// TestAnswerEach checks that statements of one shape answered together with one read equal
// each answered alone, and that shapes ignore the HAVING clause alone.
func TestAnswerEach(t *testing.T) {
	t.Parallel()
	now := time.Now().Truncate(time.Minute)
	var recs []rec
	for i := range 50 {
		recs = append(recs, rec{time: now.Unix() - int64(i*60) - 1, proto: 6, app: "https",
			cIP: netip.MustParseAddr("10.9.9.9"), sIP: netip.AddrFrom4([4]byte{10, 0, 0, byte(i % 7)}), sPort: 443,
			sBytes: uint64(100 * i), sPackets: uint64(i % 3)})
	}
	e := New(openDB(t, recs))
	exprs := []string{
		"traffic, packets BY server.ip HAVING traffic > 1000 SINCE @now-3600",
		"traffic, packets BY server.ip   HAVING packets > 5 AND traffic < 30000\nSINCE @now-3600",
		"traffic, packets BY server.ip HAVING records / 2 >= 3 OR server.traffic > 40000 SINCE @now-3600",
		"traffic, packets BY server.ip SINCE @now-3600 HAVING traffic > 0",
	}
	var stmts []*Statement
	for _, x := range exprs {
		st, err := Parse(x)
		if err != nil {
			t.Fatal(err)
		}
		if got := st[0].Shape(); got != "traffic, packets BY server.ip SINCE @now-3600" {
			t.Fatalf("shape of %q: %q", x, got)
		}
		stmts = append(stmts, st[0])
	}
	got, err := e.AnswerEach(context.Background(), stmts, now, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range exprs {
		want, err := e.Query(context.Background(), x, now, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got[i].Data, want[0].Data) || len(want[0].Data) == 0 && i == 0 {
			t.Errorf("%s: together %v, alone %v", x, got[i].Data, want[0].Data)
		}
	}
	other, _ := Parse("traffic, packets BY server.ip SINCE @now-60 HAVING traffic > 0")
	if _, err := e.AnswerEach(context.Background(), append(stmts, other[0]), now, time.Hour); err == nil {
		t.Error("statements of two shapes answered together")
	}
}
