package pvql

import (
	"math"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// AddKey adds the key name over column c, a number or string column (records.AddColumn), with
// its description: for a test build that adds a key the language does not have, before it
// parses a statement naming it. A number key's literals are integers 0 to its kind's maximum,
// a string key's strings compared as given. A key of the program is a row of keyKinds
// instead, with its own type. AddKey panics on a name taken or a column of another kind.
func AddKey(name string, c records.Column, desc string) {
	for _, k := range keyKinds {
		if k.name == name {
			panic("pvql: AddKey: a key is named " + name)
		}
	}
	typ := map[records.Kind]*keyType{records.KindUint8: numberType(name, math.MaxUint8),
		records.KindUint16: numberType(name, math.MaxUint16), records.KindUint32: numberType(name, math.MaxUint32),
		records.KindString: exporterNameType}[c.Kind()]
	if typ == nil {
		panic("pvql: AddKey: a key over a number (uint8 to uint32) or string column")
	}
	keyKinds = append(keyKinds, keyKinds[0])
	k := &keyKinds[len(keyKinds)-1]
	k.name, k.column, k.typ, k.desc, k.since, k.extra = name, c, typ, desc, "", nil
}

// numberType is the type of the number key name, of values 0 to max.
func numberType(name string, max int64) *keyType {
	return &keyType{name: "number", words: 1, literal: numberLiteral(name, max),
		render: func(v records.Value, _ []string) any { return int64(v.Lo) }}
}
