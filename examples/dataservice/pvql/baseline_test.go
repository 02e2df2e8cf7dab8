package pvql

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"time"
)

// TestBaselineSyntax checks the baseline's grammar: its canonical form, and QUERY-SYNTAX
// errors at the right position.
func TestBaselineSyntax(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ expr, value string }{
		{"baseline(traffic, 7d)", "baseline(traffic, 604800)"},
		{"traffic / BASELINE(traffic + 1, 3600, 4) AS \"r\" HAVING r > 3", "r"},
		{"baseline(client.traffic / traffic, 1w, 2) * 3", "baseline(client.traffic / traffic, 604800, 2) * 3"},
	} {
		sts, err := Parse(c.expr)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		if got := sts[0].Values()[0]; got != c.value {
			t.Errorf("%s: value %q, want %q", c.expr, got, c.value)
		}
	}
	for _, c := range []struct {
		expr     string
		position int
		expected string
	}{
		{"traffic HAVING traffic > baseline(traffic, 7x)", 43, expOffset},
		{"traffic HAVING traffic > baseline(traffic, 0)", 43, expOffset},
		{"traffic HAVING traffic > baseline(traffic)", 41, "\",\" and the offset of the baseline"},
		{"baseline(traffic, 7d, 0)", 22, expWindows},
		{"baseline(traffic, 7d, 53)", 22, expWindows},
		{"baseline(baseline(traffic, 1d), 7d)", 9, expValue},
		{"baseline(traffic, 7d", 20, "\")\""},
		{"baseline(trafic, 7d)", 9, expValue},
	} {
		_, err := Parse(c.expr)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Position != c.position || se.Expected != c.expected {
			t.Errorf("%s: %v, want position %d expecting %q", c.expr, err, c.position, c.expected)
		}
	}
}

// TestBaselineAnswers checks baselines over real records: a server with ten times last
// week's traffic at that hour passes traffic > 3 * baseline(traffic, 7d); one with the same
// traffic as last week does not; the average over several windows.
func TestBaselineAnswers(t *testing.T) {
	t.Parallel()
	now := time.Now().Truncate(time.Hour)
	week := int64(7 * 24 * 3600)
	at := now.Unix() - 600
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	r := func(t int64, s netip.Addr, bytes uint64) rec {
		return rec{time: t, proto: 6, app: "https", cIP: netip.MustParseAddr("10.9.9.9"), sIP: s, sPort: 443, sBytes: bytes}
	}
	db := openDB(t, []rec{
		r(at-week, a, 1000), r(at, a, 10000), // a burst: ten times last week
		r(at-week, b, 5000), r(at, b, 5000), // as last week
		r(at-2*week, b, 15000),
	})
	e := New(db)
	res, err := e.Query(context.Background(), "traffic, baseline(traffic, 7d), baseline(traffic, 7d, 2) BY server.ip "+
		"HAVING traffic > 3 * baseline(traffic, 7d) SINCE @now-3600", now, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if d := res[0].Data; len(d) != 1 || d[0].Keys[0] != "10.0.0.1" || d[0].Values[0] != 10000 || d[0].Values[1] != 1000 ||
		d[0].Values[2] != 500 {
		t.Fatalf("answered %+v; want 10.0.0.1 alone, 10000 against 1000 (500 over two weeks)", d)
	}
	res, err = e.Query(context.Background(), "traffic, baseline(traffic, 7d, 2) BY server.ip SINCE @now-3600", now, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if d := res[0].Data; len(d) != 2 || d[1].Keys[0] != "10.0.0.2" || d[1].Values[1] != 10000 {
		t.Fatalf("answered %+v; want 10.0.0.2's two-week average 10000", d)
	}
}
