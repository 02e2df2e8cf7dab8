package pvql_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/netip"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

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
	db, err := sql.Open("duckdb", "")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(records.Schema); err != nil {
		log.Fatal(err)
	}
	// Three records: 10.0.0.5 talks to the server twice, 10.0.0.6 once.
	insert := `INSERT INTO records VALUES (?, 6, 'https', ?, ?, 51234, ?, 10, ?, ?, 443, ?, 20)`
	sHi, sLo := records.Halves(netip.MustParseAddr("93.184.216.34"))
	for _, r := range []struct {
		time           int64
		client         string
		cBytes, sBytes int64
	}{
		{1699999000, "10.0.0.5", 1000, 9000},
		{1699999100, "10.0.0.5", 500, 0},
		{1699999200, "10.0.0.6", 2000, 30000},
	} {
		cHi, cLo := records.Halves(netip.MustParseAddr(r.client))
		if _, err := db.Exec(insert, r.time, int64(cHi), int64(cLo), r.cBytes, int64(sHi), int64(sLo), r.sBytes); err != nil {
			log.Fatal(err)
		}
	}

	engine := pvql.New(db)
	now := time.Unix(1700000000, 0)
	results, err := engine.Query(context.Background(), "traffic, client.traffic / traffic BY client.ip; records", now, time.Hour)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range results {
		r.Meta.Elapsed = 0 // varies from run to run
		out, _ := json.Marshal(r)
		fmt.Println(string(out))
	}
	// Output:
	// {"data":[[["10.0.0.6"],[32000,0.0625]],[["10.0.0.5"],[10500,0.14285714285714285]]],"meta":{"accumulated_time":3600,"elapsed":0,"sorted":true}}
	// {"data":[[[],[3]]],"meta":{"accumulated_time":3600,"elapsed":0,"sorted":true}}
}
