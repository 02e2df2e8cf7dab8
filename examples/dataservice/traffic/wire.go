package traffic

import (
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
)

// apiResults returns rs as the query function answers them. Each api.Row shares its keys and
// values with the pvql.Row it comes from: only the rows' headers are copied, into one slice
// for all the results. nil stays nil.
func apiResults(rs []pvql.Result) []api.Result {
	if rs == nil {
		return nil
	}
	n := 0
	for _, r := range rs {
		n += len(r.Data)
	}
	rows := make([]api.Row, n)
	out := make([]api.Result, len(rs))
	for i, r := range rs {
		data := rows[:len(r.Data):len(r.Data)]
		rows = rows[len(r.Data):]
		for j, row := range r.Data {
			data[j] = api.Row(row)
		}
		out[i] = api.Result{Data: data, Meta: api.Meta(r.Meta)}
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
