package registry

import "encoding/json"

// splitArray returns the elements of raw, a valid JSON array, as they are written (without the
// whitespace around them), in one pass and without decoding them: what [json.Unmarshal] into a
// []json.RawMessage gives, minus its validation and copies. It returns false when raw is not an
// array; raw must be valid JSON (Call.Args values are).
func splitArray(raw json.RawMessage) ([]json.RawMessage, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	out := []json.RawMessage{}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return out, true
	}
	for i < len(raw) {
		end, ok := valueEnd(raw, i)
		if !ok || end == i {
			return nil, false
		}
		out = append(out, raw[i:end:end])
		i = skipSpace(raw, end)
		if i >= len(raw) {
			return nil, false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case ']':
			return out, true
		default:
			return nil, false
		}
	}
	return nil, false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// structural marks the bytes that open or close a string, an array or an object.
var structural = [256]bool{'"': true, '[': true, ']': true, '{': true, '}': true}

// valueEnd returns the offset just past the JSON value that starts at b[i].
func valueEnd(b []byte, i int) (int, bool) {
	depth := 0
	for j := i; j < len(b); j++ {
		if depth > 0 { // inside an array or object: on to the next byte that matters
			for j < len(b) && !structural[b[j]] {
				j++
			}
			if j == len(b) {
				break
			}
		}
		switch c := b[j]; c {
		case '"':
			for j++; j < len(b) && b[j] != '"'; j++ {
				if b[j] == '\\' {
					j++
				}
			}
			if j >= len(b) {
				return 0, false
			}
			if depth == 0 {
				return j + 1, true
			}
		case '[', '{':
			depth++
		case ']', '}':
			if depth == 0 { // a number or literal ended by its array's bracket
				return j, true
			}
			depth--
			if depth == 0 {
				return j + 1, true
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return j, true
			}
		default:
			if depth == 0 && j+1 == len(b) {
				return j + 1, true
			}
		}
	}
	return 0, false
}
