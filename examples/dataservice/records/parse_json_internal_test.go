package records

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/histogram"
)

// objectBefore is object as it was, decoding the whole object into a map before looking for
// unknown members: object must read every input as it did, memory aside.
func objectBefore(raw json.RawMessage, path, prefix string, known ...string) (map[string]json.RawMessage, error) {
	fields, err := func() (map[string]json.RawMessage, error) {
		if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
			return nil, &RecordError{Field: path, Reason: "not an object"}
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, &RecordError{Field: path, Reason: "invalid JSON object"}
		}
		return m, nil
	}()
	if err != nil {
		return nil, err
	}
	var unknown []string
	for name := range fields {
		if !slices.Contains(known, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		return nil, &RecordError{Field: prefix + slices.Min(unknown), Reason: "unknown field"}
	}
	return fields, nil
}

var objectKnown = []string{"time", "client", "ct_hist", "é"}

var objectSeeds = []string{
	`{}`, ` { } `, `[]`, `null`, `""`, ``, `{`, `{} x`, `{}{}`, `{"time":1,}`, `{"time" 1}`,
	`{"time":1}`, `{"time":1,"time":[2, {"a":"}"}]}`, " {\n\t\"time\" : 1 ,\r\"client\" : { \"ip\" : \"a\\\"}\" } } ",
	`{"b":1,"a":2,"time":3}`, `{"zz":1,"time":}`, `{"zz":1,"time":2} x`, `{"ti\u006de":1,"time":2}`,
	`{"\u00e9":1}`, `{"é":1,"\u00e9":2}`, `{"\ud800":1,"a":2}`, "{\"\xff\":1,\"\xfe\":2}", `{"a\"b":1,"a\\b":2}`,
	`{"":1}`, `{"time":-1.5e+3,"client":true,"ct_hist":[[1,2],[3,4]],"x":null}`, `{"time":"\\","client":"]}"}`,
	`{"time":{"a":[{"b":[]}],"c":"{["},"zz":false}`, `{"ct_hist":[],"time":[[],[[]]]}`,
}

// TestObjectAsBefore reads objects, good and bad, as objectBefore does: the same members, or
// the same error.
func TestObjectAsBefore(t *testing.T) {
	t.Parallel()
	for _, s := range objectSeeds {
		checkObject(t, []byte(s))
	}
}

func FuzzObject(f *testing.F) {
	for _, s := range objectSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkObject)
}

func checkObject(t *testing.T, raw []byte) {
	m, err := object(raw, "client", "client.", objectKnown...)
	wantM, wantErr := objectBefore(raw, "client", "client.", objectKnown...)
	if !reflect.DeepEqual(err, wantErr) || !maps.EqualFunc(m, wantM, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
		t.Errorf("object(%q) = %q, %v; want %q, %v", raw, m, err, wantM, wantErr)
	}
}

// histBefore is parseHist as it was, decoding the whole list before reading its pairs.
func histBefore(v json.RawMessage, samples uint64) (histogram.Histogram, error) {
	var pairs []json.RawMessage
	if t := bytes.TrimSpace(v); len(t) == 0 || t[0] != '[' || json.Unmarshal(t, &pairs) != nil {
		return histogram.Histogram{}, &RecordError{Reason: "not a list of [index, count] pairs"}
	}
	var h histogram.Histogram
	var total uint64
	last := -1
	for _, p := range pairs {
		var pair []json.RawMessage
		if t := bytes.TrimSpace(p); len(t) == 0 || t[0] != '[' || json.Unmarshal(t, &pair) != nil || len(pair) != 2 {
			return histogram.Histogram{}, &RecordError{Reason: "not a list of [index, count] pairs"}
		}
		i, err := integer(pair[0])
		if err != nil || i < 0 || i >= histogram.Buckets {
			return histogram.Histogram{}, &RecordError{Reason: fmt.Sprintf("a bucket index not an integer 0..%d", histogram.Buckets-1)}
		}
		if int(i) <= last {
			return histogram.Histogram{}, &RecordError{Reason: "bucket indexes not increasing"}
		}
		n, err := count(pair[1])
		if err != nil || n == 0 {
			return histogram.Histogram{}, &RecordError{Reason: "a bucket count not an integer 1..2^53-1"}
		}
		if total += n; total > samples {
			break
		}
		h.AddIndex(uint16(i), n)
		last = int(i)
	}
	if total != samples {
		return histogram.Histogram{}, &RecordError{Reason: fmt.Sprintf("its counts add up to %d, not the %d samples", total, samples)}
	}
	return h, nil
}

var histSeeds = []string{
	`[]`, ` [ ] `, `{}`, `null`, `[`, `[] x`, `[[1,2]]`, ` [ [ 1 , 2 ] , [ 3 , 1 ] ] `, `[[1,2],[1,1]]`, `[[2,1],[1,2]]`,
	`[[1,2,3]]`, `[[1]]`, `[[]]`, `[1]`, `[[1,2],3]`, `[["1",2]]`, `[[1,"2"]]`, `[[-1,3]]`, `[[640,3]]`, `[[639,3]]`,
	`[[1,0]]`, `[[1,1.5]]`, `[[1,1],[2,1],[3,1],[4,5]]`, `[[1,1e2]]`, `[[1,[2]],[3,{"a":"]"}]]`, `[[1,3] ,]`,
}

// TestHistAsBefore reads histograms, good and bad, as histBefore does.
func TestHistAsBefore(t *testing.T) {
	t.Parallel()
	for _, s := range histSeeds {
		checkHist(t, []byte(s))
	}
}

func FuzzHist(f *testing.F) {
	for _, s := range histSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkHist)
}

func checkHist(t *testing.T, raw []byte) {
	h, err := parseHist(raw, 3)
	wantH, wantErr := histBefore(raw, 3)
	if !reflect.DeepEqual(err, wantErr) || !reflect.DeepEqual(h, wantH) {
		t.Errorf("parseHist(%q) = %v, %v; want %v, %v", raw, h, err, wantH, wantErr)
	}
}
