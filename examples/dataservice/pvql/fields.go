package pvql

// Field describes one name of the query language, for the list-fields function and UIs.
type Field struct {
	// Name is the name as written in queries ("traffic", "client.ip", "time(N)", "tcp").
	Name string `json:"name"`
	// Kind is "metric" (a value in values and HAVING), "key" (in BY; every key but time is
	// also a field of WHERE) or "layer" (in FROM).
	Kind string `json:"kind"`
	// Type is the kind of data: "bytes", "packets", "count", "time", "ip", "port",
	// "protocol", "string" or "layer".
	Type string `json:"type"`
	// Description says what it means, in one sentence or two.
	Description string `json:"description"`
}

// Fields returns every metric, key and layer of the query language, in that order.
func Fields() []Field {
	var out []Field
	for _, m := range metrics {
		out = append(out, Field{Name: m.name, Kind: "metric", Type: m.typ, Description: m.desc})
	}
	for i, k := range keyKinds {
		name := k.name
		if keyKind(i) == kTime {
			name = "time(N)"
		}
		out = append(out, Field{Name: name, Kind: "key", Type: k.typ.name, Description: k.desc})
	}
	for _, l := range layers {
		out = append(out, Field{Name: l.name, Kind: "layer", Type: "layer", Description: l.desc})
	}
	return out
}
