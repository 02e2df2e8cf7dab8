package jsonobject

import "encoding/binary"

// ReadPath reads b, a JSON object, as ReadMembers does, and in the same pass the members of
// the objects along path: levels[0] gets b's members, levels[1] those of b's member path[0]
// (an MCP request's params), levels[2] those of its member path[1] (their _meta); a level is
// empty when that member is absent or not an object, and the last one's when its name is
// given twice (as Get). It appends to the levels given (empty Members, whose arrays a caller
// keeps where it likes) and returns them; false when b is not a valid JSON object.
func ReadPath(b []byte, levels [3]Members, path [2]string) ([3]Members, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return levels, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return levels, skipSpace(b, i+1) == len(b)
	}
	// One loop, without recursion: levels stays where it is. k is the level whose object is
	// read, at its member b[i]; name[k] and start[k] are the member of level k-1 it is.
	var name [3]string
	var start [3]int
	k := 0
	for {
		end, n, ok := scanName(b, i)
		if !ok {
			return levels, false
		}
		v, ok := colon(b, end)
		if !ok {
			return levels, false
		}
		if k < len(path) && n == path[k] {
			for j := k + 1; j < len(levels); j++ { // a later member of the name replaces this one
				levels[j] = levels[j][:0]
			}
			if j := skipSpace(b, v+1); v < len(b) && b[v] == '{' && j < len(b) && b[j] != '}' {
				k++
				name[k], start[k], i = n, v, j
				continue
			}
		}
		if end, ok = scanValue(b, v, k+1); !ok {
			return levels, false
		}
		levels[k] = append(levels[k], Member{n, b[v:end:end]})
		i = skipSpace(b, end)
		for { // after a member: the next one, or the end of its object and of those it ends
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				break
			}
			if i >= len(b) || b[i] != '}' {
				return levels, false
			}
			i++
			if k == 0 {
				return levels, skipSpace(b, i) == len(b)
			}
			k--
			levels[k] = append(levels[k], Member{name[k+1], b[start[k+1]:i:i]})
			i = skipSpace(b, i)
		}
	}
}

// plain marks the bytes of a name read as it is written: printable ASCII but '"' and '\\'.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanName reads the member name at b[i] as scanString and unquote do, in one pass when it is
// plain ASCII, as an envelope's names are; it returns the offset just past it.
func scanName(b []byte, i int) (int, string, bool) {
	if i < len(b) && b[i] == '"' {
		j := i + 1
		for j+8 <= len(b) && special8(binary.LittleEndian.Uint64(b[j:]), true) == 0 {
			j += 8
		}
		for j < len(b) && plain[b[j]] {
			j++
		}
		if j < len(b) && b[j] == '"' {
			return j + 1, String(b[i+1 : j]), true
		}
	}
	end, ok := scanString(b, i)
	if !ok {
		return 0, "", false
	}
	return end, unquote(b[i:end]), true
}
