package records_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

func ExampleParseRecord() {
	raw := json.RawMessage(`{"time": "2023-11-14T22:13:20Z", "protocol": "udp",
		"client": {"ip": "::ffff:10.0.0.5", "port": 51234, "bytes": 70, "packets": 1},
		"server": {"ip": "2001:DB8::53", "port": 53, "bytes": 180, "packets": 1}}`)
	r, err := records.ParseRecord(raw, time.Now())
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := json.Marshal(r)
	fmt.Println(string(out))
	// Output:
	// {"time":1700000000,"protocol":"udp","application":"dns","client":{"ip":"10.0.0.5","port":51234,"bytes":70,"packets":1},"server":{"ip":"2001:db8::53","port":53,"bytes":180,"packets":1}}
}

func ExampleParseBatch() {
	batch := []json.RawMessage{
		json.RawMessage(`{"time": 1700000000, "protocol": "tcp", "client": {"ip": "10.0.0.5"}, "server": {"ip": "10.0.0.6", "port": 22}}`),
		json.RawMessage(`{"time": 1700000000, "protocol": "tcp", "client": {"ip": "10.0.0.5", "bytes": -3}, "server": {"ip": "10.0.0.6"}}`),
	}
	_, err := records.ParseBatch(batch, time.Now())
	var be *records.BatchError
	var re *records.RecordError
	if errors.As(err, &be) && errors.As(err, &re) {
		fmt.Println(be.Index, re.Field, re.Reason)
	}
	fmt.Println(err)
	// Output:
	// 1 client.bytes negative
	// records: record 1: client.bytes: negative
}

func ExampleHalves() {
	hi, lo := records.Halves(netip.MustParseAddr("192.0.2.1"))
	fmt.Printf("%#x %#x %s\n", hi, lo, records.AddrFromHalves(hi, lo))
	// Output:
	// 0x0 0xffffc0000201 192.0.2.1
}
