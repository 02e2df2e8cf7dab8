package traffic

import (
	"unsafe"

	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
)

// api.Row and pvql.Row are one struct, field for field (this conversion compiles only while
// they are), so that apiResults can read a []pvql.Row as a []api.Row in place.
var _ = api.Row(pvql.Row{})

// apiResults returns rs as the query function answers them. The rows are not copied: each
// result's []pvql.Row is read as the []api.Row it is in memory (a 43,200-row answer would
// otherwise copy 2 MB of row headers before its JSON is written), so the answer shares
// everything with rs, which neither side modifies after the engine answered. nil stays nil.
func apiResults(rs []pvql.Result) []api.Result {
	if rs == nil {
		return nil
	}
	out := make([]api.Result, len(rs))
	for i, r := range rs {
		data := unsafe.Slice((*api.Row)(unsafe.Pointer(unsafe.SliceData(r.Data))), len(r.Data))
		out[i] = api.Result{Data: data[:len(data):len(data)], Meta: api.Meta(r.Meta)}
	}
	return out
}

// apiFields returns fs as list-fields answers them.
func apiFields(fs []pvql.Field) []api.Field {
	out := make([]api.Field, len(fs))
	for i, f := range fs {
		out[i] = api.Field(f)
	}
	return out
}
