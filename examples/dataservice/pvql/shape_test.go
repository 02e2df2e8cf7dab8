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

// TestAnswerFamily checks that statements differing in an equality term of their WHERE (and
// their HAVING) answered together with one read equal each answered alone, and which
// statements are of one family.
func TestAnswerFamily(t *testing.T) {
	t.Parallel()
	now := time.Now().Truncate(time.Minute)
	var recs []rec
	for i := range 60 {
		app := "https"
		if i%4 == 0 {
			app = "ssh"
		}
		recs = append(recs, rec{time: now.Unix() - int64(i*50) - 1, proto: 6, app: app,
			cIP: netip.AddrFrom4([4]byte{10, 9, 9, byte(i % 5)}), sIP: netip.AddrFrom4([4]byte{10, 0, 0, byte(i % 7)}),
			sPort: 443, sBytes: uint64(100 * i), sPackets: uint64(i % 3)})
	}
	e := New(openDB(t, recs))
	families := [][]string{{
		"traffic BY client.ip WHERE server.ip = 10.0.0.1 HAVING traffic > 1000 SINCE @now-3600",
		"traffic BY client.ip WHERE server.ip = 10.0.0.2 HAVING traffic > 10 SINCE @now-3600",
		"traffic BY client.ip HAVING packets > 1 WHERE server.ip = 10.0.0.3 SINCE @now-3600",
		"traffic BY client.ip WHERE server.ip = 10.0.0.1 SINCE @now-3600",
		"traffic BY client.ip WHERE server.ip = 10.0.0.9 SINCE @now-3600", // no record
	}, {
		"traffic, records BY client.ip WHERE application = \"https\" AND server.ip = 10.0.0.4 AND client.ip != 10.9.9.1 SINCE @now-3600",
		"traffic, records BY client.ip WHERE application = \"ssh\" AND server.ip = 10.0.0.4 AND client.ip != 10.9.9.1 SINCE @now-3600",
		"traffic, records BY client.ip WHERE application = \"ssh\" AND server.ip = 10.0.0.4 AND client.ip != 10.9.9.1 HAVING records > 1 SINCE @now-3600",
	}, {
		"traffic WHERE server.ip = 10.0.0.5 HAVING traffic > 100 SINCE @now-3600",
		"traffic WHERE server.ip = 10.0.0.6 SINCE @now-3600",
		"traffic WHERE server.ip = 10.0.0.9 SINCE @now-3600",
	}}
	for _, exprs := range families {
		var stmts []*Statement
		for _, x := range exprs {
			st, err := Parse(x)
			if err != nil {
				t.Fatal(err)
			}
			if st[0].Family() != stmts0(t, exprs[0]).Family() || st[0].Family() == st[0].Shape() {
				t.Fatalf("family of %q: %q; of %q: %q", x, st[0].Family(), exprs[0], stmts0(t, exprs[0]).Family())
			}
			stmts = append(stmts, st[0])
		}
		got, err := e.AnswerEach(context.Background(), stmts, now, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		rows := 0
		for i, x := range exprs {
			want, err := e.Query(context.Background(), x, now, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			rows += len(want[0].Data)
			if !reflect.DeepEqual(got[i].Data, want[0].Data) || got[i].Meta.AccumulatedTime != want[0].Meta.AccumulatedTime {
				t.Errorf("%s: together %v, alone %v", x, got[i].Data, want[0].Data)
			}
		}
		if rows == 0 {
			t.Errorf("%q: no rows", exprs)
		}
	}
	for _, pair := range [][2]string{
		{"traffic BY client.ip WHERE server.ip = 10.0.0.1", "traffic BY client.ip WHERE server.ip = 10.0.0.2 AND application = \"ssh\""},
		{"traffic BY client.ip WHERE server.ip = 10.0.0.1", "traffic BY client.ip WHERE client.ip = 10.0.0.1"},
		{"traffic BY client.ip WHERE server.ip = 10.0.0.1", "traffic BY client.ip WHERE server.ip IN (10.0.0.1)"},
		{"traffic BY client.ip WHERE server.ip = 10.0.0.1", "traffic BY client.ip WHERE server.ip = 10.0.0.2 OR application = \"ssh\""},
	} {
		if a, b := stmts0(t, pair[0]).Family(), stmts0(t, pair[1]).Family(); a == b {
			t.Errorf("%q and %q: one family %q", pair[0], pair[1], a)
		}
	}
	for _, x := range []string{
		"traffic BY client.ip WHERE server.ip = 10.0.0.1 TOP 3",
		"traffic BY client.ip, time(60) WHERE server.ip = 10.0.0.1",
		"traffic BY server.ip WHERE server.ip = 10.0.0.1",
		"traffic BY client.ip WHERE server.ip = 10.0.0.1 OR application = \"ssh\"",
		"traffic BY client.ip WHERE server.ip != 10.0.0.1",
	} {
		if st := stmts0(t, x); st.Family() != st.Shape() {
			t.Errorf("%q: family %q; want its shape", x, st.Family())
		}
	}
}

func stmts0(t *testing.T, x string) *Statement {
	t.Helper()
	st, err := Parse(x)
	if err != nil {
		t.Fatal(err)
	}
	return st[0]
}

// TestAnswerFamilyReads checks a family of more literals than one read asks for
// (MaxFamilyRead): each statement still gets its own answer, those of the later read too.
func TestAnswerFamilyReads(t *testing.T) {
	t.Parallel()
	now := time.Now().Truncate(time.Minute)
	var recs []rec
	for i := range 20 {
		recs = append(recs, rec{time: now.Unix() - int64(i*60) - 1, proto: 6, app: "https",
			cIP: netip.AddrFrom4([4]byte{10, 9, 9, byte(i % 3)}), sIP: netip.AddrFrom4([4]byte{10, 0, 0, byte(i % 4)}),
			sPort: 443, sBytes: uint64(100 * i)})
	}
	e := New(openDB(t, recs))
	var exprs []string
	var stmts []*Statement
	for i := range MaxFamilyRead + 2 {
		server := netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)})
		switch i {
		case 0, MaxFamilyRead - 1, MaxFamilyRead, MaxFamilyRead + 1:
			server = netip.AddrFrom4([4]byte{10, 0, 0, byte(i % 4)})
		}
		x := "traffic BY client.ip WHERE server.ip = " + server.String() + " SINCE @now-3600"
		exprs, stmts = append(exprs, x), append(stmts, stmts0(t, x))
	}
	got, err := e.AnswerEach(context.Background(), stmts, now, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, MaxFamilyRead - 1, MaxFamilyRead, MaxFamilyRead + 1} {
		want, err := e.Query(context.Background(), exprs[i], now, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got[i].Data, want[0].Data) || len(want[0].Data) == 0 && i != 1 {
			t.Errorf("%s: together %v, alone %v", exprs[i], got[i].Data, want[0].Data)
		}
	}
}
