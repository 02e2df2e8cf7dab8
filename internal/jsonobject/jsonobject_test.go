package jsonobject

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

// objectSeeds are bodies Read must read as encoding/json does: valid ones of every kind
// of value and spacing, and invalid ones of every way to be wrong.
var objectSeeds = []string{
	`{}`, ` { } `, `{"a":1}`, "{\n\t\"a\" :\r 1 , \"b\": [ ] }\n",
	`{"records":[{"time":1700000000,"protocol":"tcp","client":{"ip":"10.0.0.1"}},{"x":[1,2,{}]}]}`,
	`{"n":-0.5e+10,"m":0,"o":1E3,"p":-12.25,"t":true,"f":false,"z":null,"s":"a\"\\\/\b\f\n\r\t\u00e9"}`,
	`{"a":1,"a":2}`, `{"\u0061":1}`, `{"caf\u00e9":1,"é":2}`, "{\"\xff\":1}", "{\"a\":\"\xff\xfe\"}",
	`{"a":{"b":{"c":[[[]]]}}}`, `{"a":[{},{"b":[]}]}`, `{"a":{"b":{"c":1},"b":2},"a":{"b":{"d":[]}}}`,
	`{"a":{"b":{"c":1}},"a":3}`, `{"a":{"\u0062":{"c":1,}}}`, `{"a":{"b":{}},"x":{"b":{"c":1}}}`,
	``, ` `, `[]`, `1`, `"a"`, `null`, `{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,"a":1}`,
	`{"a":1}x`, `{"a":1} {}`, `{"a" 1}`, `{a:1}`, `{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`,
	`{"a":-}`, `{"a":+1}`, `{"a":tru}`, `{"a":nul}`, `{"a":True}`, `{"a":"\x"}`, `{"a":"\u12"}`,
	"{\"a\":\"\x01\"}", `{"a":"unterminated}`, `{"a":[1,]}`, `{"a":[1 2]}`, `{"a":{"b":1,}}`,
	`{"a":{"b"}}`, `{"a":[}`, `{"a":{]}`, `{"a":1]`, `{"a":"\"}`, `{"a":1}}`, "{\"a\":1}\x00",
	// names and strings longer than 8 bytes, read 8 at a time, with what stops that at each place
	`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","abcdefghijklmnop":"abcdefghijklmnopq"}`,
	`{"abcdefgh\"ijklmnop":"abcdefghijk\\lmnop"}`, `{"abcdefghijklmnopé":"abcdefghijklmnopqé"}`,
	"{\"abcdefghijk\x7fmn\":\"abcdefghi\x1fjk\"}", "{\"abcdefghijklm\tn\":1}", `{"abcdefghijklmnopq`,
}

// TestSpecial8 holds the 8-byte test of string bytes to the byte-by-byte one: every byte value
// at every place among plain ones.
func TestSpecial8(t *testing.T) {
	t.Parallel()
	for c := range 256 {
		for at := range 8 {
			w := []byte("abcdefgh")
			w[at] = byte(c)
			x := uint64(0)
			for i := 7; i >= 0; i-- {
				x = x<<8 | uint64(w[i])
			}
			if got, want := special8(x, false) != 0, !inString[c]; got != want {
				t.Errorf("byte %#x at %d: special %v, want %v", c, at, got, want)
			}
			if got, want := special8(x, true) != 0, !plain[c]; got != want {
				t.Errorf("byte %#x at %d among ASCII: special %v, want %v", c, at, got, want)
			}
		}
	}
}

func TestReadObject(t *testing.T) {
	t.Parallel()
	for _, s := range objectSeeds {
		checkRead(t, s)
	}
}

// TestReadObjectDepth: nesting is refused past encoding/json's limit, as it refuses it.
func TestReadObjectDepth(t *testing.T) {
	t.Parallel()
	for _, n := range []int{maxJSONDepth - 2, maxJSONDepth - 1, maxJSONDepth, maxJSONDepth + 1} {
		for _, open := range []string{"[", `{"k":`} {
			close := map[string]string{"[": "]", `{"k":`: "}"}[open]
			checkRead(t, `{"a":`+strings.Repeat(open, n)+`1`+strings.Repeat(close, n)+`}`)
		}
		checkElements(t, strings.Repeat("[", n)+"1"+strings.Repeat("]", n))
	}
}

// FuzzReadObject checks Read against encoding/json on any input: the same bodies
// accepted, the same arguments read from them.
func FuzzReadObject(f *testing.F) {
	for _, s := range objectSeeds {
		f.Add(s)
	}
	f.Fuzz(checkRead)
}

func checkRead(t *testing.T, s string) {
	t.Helper()
	got := map[string]json.RawMessage{"kept": json.RawMessage(`0`)}
	ok := Read([]byte(s), got, true)
	shared := map[string]json.RawMessage{"kept": json.RawMessage(`0`)}
	if Read([]byte(s), shared, false) != ok || !maps.EqualFunc(got, shared, rawEqual) {
		t.Fatalf("Read(%q) without copying read %q; copying %q", s, shared, got)
	}
	// ReadMembers agrees with Read: the same answer, and each name's last value.
	ms, mok := ReadMembers([]byte(s), nil)
	if mok != ok {
		t.Fatalf("ReadMembers(%q) = %v, Read %v", s, mok, ok)
	}
	for _, m := range ms {
		if !rawEqual(ms.Get(m.Name), got[m.Name]) {
			t.Fatalf("ReadMembers(%q).Get(%q) = %s, Read %s", s, m.Name, ms.Get(m.Name), got[m.Name])
		}
	}
	if ok && len(got) != len(uniqueNames(ms))+1-btoi(ms.Get("kept") != nil) {
		t.Fatalf("ReadMembers(%q) read %d names, Read %d", s, len(uniqueNames(ms)), len(got))
	}
	checkPath(t, s, ok, ms)
	checkEach(t, s, ok, ms)
	checkElements(t, s)
	want := map[string]json.RawMessage{"kept": json.RawMessage(`0`)}
	err := json.Unmarshal([]byte(s), &want)
	if err == nil && (len(s) == 0 || strings.TrimLeft(s, " \t\r\n")[0] != '{') {
		// Valid JSON that is not an object (null decodes into the map as nothing): refused.
		if ok {
			t.Fatalf("Read(%q) took a non-object", s)
		}
		return
	}
	if ok != (err == nil) {
		t.Fatalf("Read(%q) = %v; encoding/json: %v", s, ok, err)
	}
	if !maps.EqualFunc(got, want, rawEqual) {
		t.Fatalf("Read(%q) read %q; encoding/json %q", s, got, want)
	}
}

// checkPath checks ReadPath along a, b against Read and ReadMembers, level by level: the same
// answer as Read, the members ReadMembers reads, and at each level the members of the
// object the level above holds (none when it holds no object).
func checkPath(t *testing.T, s string, ok bool, ms Members) {
	t.Helper()
	var bufs [3][2]Member
	levels, got := ReadPath([]byte(s), [3]Members{bufs[0][:0], bufs[1][:0], bufs[2][:0]}, [2]string{"a", "b"})
	if got != ok {
		t.Fatalf("ReadPath(%q) = %v, Read %v", s, got, ok)
	}
	if !ok {
		return
	}
	want := ms
	for k, level := range levels {
		if len(level) != len(want) {
			t.Fatalf("ReadPath(%q) level %d read %q, want %q", s, k, level, want)
		}
		for i := range want {
			if level[i].Name != want[i].Name || !rawEqual(level[i].Value, want[i].Value) {
				t.Fatalf("ReadPath(%q) level %d read %q, want %q", s, k, level, want)
			}
		}
		if k < 2 {
			want, _ = ReadMembers(want.Get([]string{"a", "b"}[k]), nil)
		}
	}
}

func uniqueNames(ms Members) map[string]bool {
	names := map[string]bool{}
	for _, m := range ms {
		names[m.Name] = true
	}
	return names
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func rawEqual(a, b json.RawMessage) bool { return string(a) == string(b) }

// BenchmarkReadObject reads the body of an ingest call of 10,000 records (~2 MB), as
// encoding/json and as Read do it.
func BenchmarkReadObject(b *testing.B) {
	rec := `{"time":1700000000,"protocol":"tcp","application":"https","client":{"ip":"10.0.0.5","port":51234,"bytes":1200,"packets":9},"server":{"ip":"93.184.216.34","port":443,"bytes":48000,"packets":40}}`
	body := []byte(`{"records":[` + strings.Repeat(rec+",", 9999) + rec + `]}`)
	b.Run("encoding_json", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(body, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Read", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if !Read(body, map[string]json.RawMessage{}, true) {
				b.Fatal("refused")
			}
		}
	})
}

// BenchmarkReadPath reads a stateless MCP tools/call as the mcp package does: its envelope,
// params and _meta in one pass.
func BenchmarkReadPath(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":1,"b":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	for b.Loop() {
		var members [20]Member
		if _, ok := ReadPath(body, [3]Members{members[:0:6], members[6:6:14], members[14:14]}, [2]string{"params", "_meta"}); !ok {
			b.Fatal("refused")
		}
	}
}

// checkEach checks Each against ReadMembers: the same answer, and on an object the same
// members in the same order.
func checkEach(t *testing.T, s string, ok bool, ms Members) {
	t.Helper()
	var each Members
	if Each([]byte(s), func(name, value []byte) { each = append(each, Member{unquote(name), value}) }) != ok {
		t.Fatalf("Each(%q) = %v, Read %v", s, !ok, ok)
	}
	if ok && !slices.EqualFunc(each, ms, func(a, b Member) bool { return a.Name == b.Name && rawEqual(a.Value, b.Value) }) {
		t.Fatalf("Each(%q) read %q, ReadMembers %q", s, each, ms)
	}
}

// checkElements checks Elements against encoding/json: an array accepted as json.Unmarshal
// into a []json.RawMessage accepts it, with the same elements.
func checkElements(t *testing.T, s string) {
	t.Helper()
	var got []json.RawMessage
	ok := Elements([]byte(s), func(v []byte) bool { got = append(got, v); return true })
	var want []json.RawMessage
	err := json.Unmarshal([]byte(s), &want)
	isArray := err == nil && strings.TrimLeft(s, " \t\r\n")[0] == '['
	if ok != isArray || ok && !slices.EqualFunc(got, want, rawEqual) {
		t.Fatalf("Elements(%q) = %v %q; encoding/json: %v %q", s, ok, got, err, want)
	}
}
