package clickhouse

import (
	"database/sql/driver"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

func joinNames(names []string) string { return strings.Join(names, ", ") }

// batchColumn holds one column of a batch as the typed slice the driver appends.
type batchColumn interface {
	add(v driver.Value)
	slice() any
}

type typedColumn[T any] struct{ s []T }

func (c *typedColumn[T]) add(v driver.Value) { c.s = append(c.s, v.(T)) }
func (c *typedColumn[T]) slice() any         { return c.s }

// newColumns returns empty columns of the kinds given, with room for n rows.
func newColumns(kinds []records.Kind, n int) []batchColumn {
	out := make([]batchColumn, len(kinds))
	for i, k := range kinds {
		switch k {
		case records.KindInt64:
			out[i] = &typedColumn[int64]{make([]int64, 0, n)}
		case records.KindUint8:
			out[i] = &typedColumn[uint8]{make([]uint8, 0, n)}
		case records.KindUint16:
			out[i] = &typedColumn[uint16]{make([]uint16, 0, n)}
		case records.KindUint32:
			out[i] = &typedColumn[uint32]{make([]uint32, 0, n)}
		case records.KindUint64:
			out[i] = &typedColumn[uint64]{make([]uint64, 0, n)}
		case records.KindString:
			out[i] = &typedColumn[string]{make([]string, 0, n)}
		case records.KindHist:
			out[i] = &typedColumn[[]uint64]{make([][]uint64, 0, n)}
		case records.KindUint32s:
			out[i] = &typedColumn[[]uint32]{make([][]uint32, 0, n)}
		case records.KindStrings:
			out[i] = &typedColumn[[]string]{make([][]string, 0, n)}
		}
	}
	return out
}

// newDest returns a pointer to scan a column of kind k into.
func newDest(k records.Kind) any {
	switch k {
	case records.KindInt64:
		return new(int64)
	case records.KindUint8:
		return new(uint8)
	case records.KindUint16:
		return new(uint16)
	case records.KindUint32:
		return new(uint32)
	case records.KindString:
		return new(string)
	case records.KindHist:
		return new([]uint64)
	}
	return new(uint64)
}
