package jsonobject

import (
	"bytes"
	"encoding/json"
	"slices"
)

// Encode appends v as JSON to b, as [json.Encoder] without HTML escaping writes it but without
// its trailing newline. A map[string]json.RawMessage (the members Read reads, as echo answers
// them) is written without reflection: names sorted as encoding/json sorts them, values
// compacted. The HTTP binding and MCP answer with it.
func Encode(b *bytes.Buffer, v any) error {
	if m, ok := v.(map[string]json.RawMessage); ok {
		return encodeRawMap(b, m)
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1)
	return nil
}

func encodeRawMap(b *bytes.Buffer, m map[string]json.RawMessage) error {
	var small [16]string
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := encodeString(b, k); err != nil {
			return err
		}
		b.WriteByte(':')
		v := m[k]
		if v == nil {
			b.WriteString("null")
			continue
		}
		if err := json.Compact(b, v); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// encodeString appends s as a JSON string; plain ASCII is written as is.
func encodeString(b *bytes.Buffer, s string) error {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return Encode(b, s)
		}
	}
	b.WriteByte('"')
	b.WriteString(s)
	b.WriteByte('"')
	return nil
}
