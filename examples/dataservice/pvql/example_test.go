package pvql_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/netip"
	"os"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records/duckdb"

	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
)

func ExampleValidate() {
	err := pvql.Validate("traffic BY client.ip WHERE server.port = https")
	var se *pvql.SyntaxError
	if errors.As(err, &se) {
		fmt.Println(se.Position)
		fmt.Println(se.Message)
		fmt.Println(se.Expected)
	}
	// Output:
	// 41
	// unexpected "https"
	// a port number (0-65535)
}

func ExampleEngine_Query() {
	dir, err := os.MkdirTemp("", "pvql-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store, err := duckdb.Open(context.Background(), dir)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	// Three records: 10.0.0.5 talks to the server twice, 10.0.0.6 once.
	server := netip.MustParseAddr("93.184.216.34")
	var recs []records.Record
	for _, r := range []struct {
		time           int64
		client         string
		cBytes, sBytes uint64
	}{
		{1699999000, "10.0.0.5", 1000, 9000},
		{1699999100, "10.0.0.5", 500, 0},
		{1699999200, "10.0.0.6", 2000, 30000},
	} {
		recs = append(recs, records.Record{Time: r.time, Protocol: records.TCP, Application: "https",
			Client: records.Endpoint{IP: netip.MustParseAddr(r.client), Port: 51234, Bytes: r.cBytes, Packets: 10},
			Server: records.Endpoint{IP: server, Port: 443, Bytes: r.sBytes, Packets: 20}})
	}
	if err := store.Ingest(context.Background(), recs); err != nil {
		log.Fatal(err)
	}

	engine := pvql.New(store)
	now := time.Unix(1700000000, 0)
	results, err := engine.Query(context.Background(), "traffic, client.traffic / traffic BY client.ip; records", now, time.Hour)
	if err != nil {
		log.Fatal(err)
	}
	for i, r := range results {
		fmt.Printf("statement %d: %d s, sorted %t\n", i, r.Meta.AccumulatedTime, r.Meta.Sorted)
		for _, row := range r.Data {
			fmt.Println(row.Keys, row.Values)
		}
	}
	// Output:
	// statement 0: 3600 s, sorted true
	// [10.0.0.6] [32000 0.0625]
	// [10.0.0.5] [10500 0.14285714285714285]
	// statement 1: 3600 s, sorted true
	// [] [3]
}
