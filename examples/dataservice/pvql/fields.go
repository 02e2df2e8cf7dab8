package pvql

import "github.com/fnapi/fnapi/examples/dataservice/api"

// Field describes one name of the query language, for the list-fields function and UIs: an
// api.Field, so that Go clients decode list-fields into the same type.
type Field = api.Field

// Fields returns every metric, key and layer of the query language, in that order.
func Fields() []Field {
	var out []Field
	for _, m := range metrics {
		out = append(out, Field{Name: m.name, Kind: "metric", Type: m.typ, Description: m.desc, Since: m.since})
	}
	for i, k := range keyKinds {
		name := k.name
		if keyKind(i) == kTime {
			name = "time(N)"
		}
		out = append(out, Field{Name: name, Kind: "key", Type: k.typ.name, Description: k.desc, Since: k.since})
	}
	for _, l := range layers {
		out = append(out, Field{Name: l.name, Kind: "layer", Type: "layer", Description: l.desc})
	}
	return out
}
