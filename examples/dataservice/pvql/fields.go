package pvql

import (
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/version"
)

// Field describes one name of the query language, for the list-fields function and UIs;
// list-fields answers each as an api.Field.
type Field struct {
	// Name is the name as written in queries ("traffic", "client.ip", "time(N)", "p95(m)",
	// "tcp").
	Name string
	// Kind is "metric" (a value in values and HAVING), "function" (of a metric, in values
	// and HAVING: "p95(m)"), "key" (in BY; every key but time is also a field of WHERE) or
	// "layer" (in FROM).
	Kind string
	// Type is the kind of data: "bytes", "packets", "count", "time", "ip", "port",
	// "protocol", "string" or "layer".
	Type string
	// Description says what it means, in one sentence or two.
	Description string
	// Since is the API version the name appeared in; empty for those of the first version.
	Since string
	// Layers are the layers (FROM) whose statements take the name; empty for every layer.
	Layers []string
}

// Fields returns every metric, function, key and layer of the query language, in that order.
func Fields() []Field {
	var out []Field
	for _, m := range metrics {
		out = append(out, Field{Name: m.name, Kind: "metric", Type: m.typ, Description: m.desc, Since: m.since})
	}
	for _, f := range quantileFuncs {
		out = append(out, Field{Name: f.name + "(m)", Kind: "function", Type: "seconds", Description: f.desc + " m: client.rtt, server.rtt, ct, srt or dtt.", Since: "1.3"})
	}
	for _, e := range extremes {
		out = append(out, Field{Name: e.name, Kind: "metric", Type: "time", Description: e.desc, Since: "1.4", Layers: []string{records.LayerTLS.String()}})
	}
	for i, k := range keyKinds {
		name := k.name
		if keyKind(i) == kTime {
			name = "time(N)"
		}
		f := Field{Name: name, Kind: "key", Type: k.typ.name, Description: k.desc, Since: k.since}
		if l, ok := keyLayers[keyKind(i)]; ok {
			f.Layers = []string{l.String()}
		}
		out = append(out, f)
	}
	for _, l := range layers {
		out = append(out, Field{Name: l.name, Kind: "layer", Type: "layer", Description: l.desc, Since: l.since})
	}
	return out
}

// FieldsAt returns the fields an API version knows: those without a Since, and those whose
// Since is v or earlier. list-fields answers it for the version of each call, so that a name
// added in a later version (its descriptor's since) never reaches an earlier client.
func FieldsAt(v version.Version) []Field {
	var out []Field
	for _, f := range Fields() {
		if f.Since == "" {
			out = append(out, f)
			continue
		}
		if since, err := version.Parse(f.Since); err == nil && !v.Less(since) {
			out = append(out, f)
		}
	}
	return out
}
