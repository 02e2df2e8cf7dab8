package jsonrpc_test

import (
	"encoding/json"
	"testing"

	"github.com/fnapi/fnapi/jsonrpc"
)

// FuzzParse checks that any body parses without panicking into requests that encode, or one
// error, and that what encoding/json calls invalid is a parse error.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}`, `[{"jsonrpc":"2.0","method":"x"},1]`,
		`[]`, "\v0", `{"id":{}}`, `{"jsonrpc":"2.0","id":null,"method":"m","params":3}`, `nul`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		reqs, errs, _, err := jsonrpc.Parse(body, 10)
		if !json.Valid(body) {
			if err == nil || err.Code != jsonrpc.CodeParseError {
				t.Fatalf("invalid JSON %q: %v", body, err)
			}
			return
		}
		if err != nil {
			return
		}
		if len(reqs) != len(errs) || len(reqs) == 0 || len(reqs) > 10 {
			t.Fatalf("%d requests, %d errors", len(reqs), len(errs))
		}
		for i, r := range reqs {
			if errs[i] == nil && (r.JSONRPC != "2.0" || r.Method == "") {
				t.Fatalf("accepted %+v", r)
			}
			if _, e := json.Marshal(jsonrpc.Response{JSONRPC: "2.0", ID: r.ID, Error: errs[i]}); e != nil && errs[i] != nil {
				t.Fatalf("answer does not encode: %v", e)
			}
		}
	})
}
