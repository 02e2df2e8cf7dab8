package api

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
)

// Result is the answer to one statement. It marshals to
// {"data": [[keys, values], ...], "meta": {"accumulated_time": n, "elapsed": n, "sorted": b}}.
type Result struct {
	// Data holds the rows in order; never nil.
	Data []Row `json:"data"`
	// Meta describes how the result was computed.
	Meta Meta `json:"meta"`
}

// Meta is the "meta" object of a Result.
type Meta struct {
	// AccumulatedTime is the number of seconds of the period the result covers.
	AccumulatedTime int64 `json:"accumulated_time"`
	// Elapsed is the number of seconds spent answering.
	Elapsed float64 `json:"elapsed"`
	// Sorted is true when the rows are ordered by the first value (no time key).
	Sorted bool `json:"sorted"`
	// Groups is, for a statement with TOP, how many groups (time ignored) satisfied it before
	// TOP kept the largest: a client shows "10 of 214,861". Absent without TOP, or when no
	// group matched.
	Groups int64 `json:"groups,omitempty"`
}

// Row is one group of a Result; it marshals to [keys, values].
type Row struct {
	// Keys holds the group's keys in BY order: addresses as strings (IPv4 dotted), ports and
	// times (Unix seconds) as integers, protocols as names (or integers when they have
	// none), applications as strings. Decoded by a client, numbers are float64.
	Keys []any
	// Values holds the statement's values in order; NaN stands for null (division by zero).
	Values []float64
}

// MarshalJSON encodes the result as one object. encoding/json checks and compacts what a
// MarshalJSON returns: once for the whole result here, where rows marshaled one by one cost
// it a call and a check each (a month of BY time(60) has 43,200 rows).
func (r Result) MarshalJSON() ([]byte, error) {
	meta, err := json.Marshal(r.Meta)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, 32+len(meta)+len(r.Data)*(8+24*rowWidth(r.Data)))
	b = append(b, `{"data":[`...)
	for i, row := range r.Data {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = row.appendJSON(b); err != nil {
			return nil, err
		}
	}
	b = append(b, `],"meta":`...)
	return append(append(b, meta...), '}'), nil
}

// rowWidth is the number of keys and values of the first row, 0 without rows.
func rowWidth(rows []Row) int {
	if len(rows) == 0 {
		return 0
	}
	return len(rows[0].Keys) + len(rows[0].Values)
}

// MarshalJSON encodes the row as [keys, values], a NaN value as null.
func (r Row) MarshalJSON() ([]byte, error) {
	return r.appendJSON(make([]byte, 0, 16+24*(len(r.Keys)+len(r.Values))))
}

// appendJSON appends the row as MarshalJSON encodes it.
func (r Row) appendJSON(b []byte) ([]byte, error) {
	b = append(b, "[["...)
	for i, k := range r.Keys {
		if i > 0 {
			b = append(b, ',')
		}
		switch k := k.(type) {
		case int64:
			b = strconv.AppendInt(b, k, 10)
		default:
			kb, err := json.Marshal(k)
			if err != nil {
				return nil, err
			}
			b = append(b, kb...)
		}
	}
	b = append(b, "],["...)
	for i, v := range r.Values {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendNumber(b, v)
	}
	return append(b, "]]"...), nil
}

// errRow is returned by UnmarshalJSON for JSON that is not [keys, values].
var errRow = errors.New("api: a row is [keys, values]: two arrays, values numbers or null")

// UnmarshalJSON decodes [keys, values], a null value as NaN.
func (r *Row) UnmarshalJSON(b []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil || len(pair) != 2 {
		return errRow
	}
	var keys []any
	var values []*float64
	if err := json.Unmarshal(pair[0], &keys); err != nil || !isArray(pair[0]) {
		return errRow
	}
	if err := json.Unmarshal(pair[1], &values); err != nil || !isArray(pair[1]) {
		return errRow
	}
	r.Keys, r.Values = keys, make([]float64, len(values))
	for i, v := range values {
		r.Values[i] = math.NaN()
		if v != nil {
			r.Values[i] = *v
		}
	}
	return nil
}

func isArray(b json.RawMessage) bool { return len(b) > 0 && b[0] == '[' }

// appendNumber appends v as a JSON number, or null when it is not finite.
func appendNumber(b []byte, v float64) []byte {
	switch abs := math.Abs(v); {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return append(b, "null"...)
	case abs == 0 || abs >= 1e-6 && abs < 1e21:
		return strconv.AppendFloat(b, v, 'f', -1, 64)
	}
	vb, _ := json.Marshal(v) // exponent form, as encoding/json writes it
	return append(b, vb...)
}
