package jsonobject

// ReadPath reads b, a JSON object, as ReadMembers does, and in the same pass the members of
// the objects along path: levels[0] gets b's members, levels[1] those of b's member path[0]
// (an MCP request's params), levels[2] those of its member path[1] (their _meta); a level is
// empty when that member is absent or not an object, and the last one's when its name is
// given twice (as Get). It appends to the levels given (empty Members, whose arrays a caller
// keeps where it likes) and returns them; false when b is not a valid JSON object.
func ReadPath(b []byte, levels [3]Members, path [2]string) ([3]Members, bool) {
	end, levels, ok := readObject(b, skipSpace(b, 0), 0, levels, 0, path)
	return levels, ok && skipSpace(b, end) == len(b)
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

// readObject reads the object at b[i], which depth containers hold, into levels[k:] as
// ReadPath does; it returns the offset just past it.
func readObject(b []byte, i, depth int, levels [3]Members, k int, path [2]string) (int, [3]Members, bool) {
	if i >= len(b) || b[i] != '{' || depth >= maxJSONDepth {
		return 0, levels, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, levels, true
	}
	for {
		end, name, ok := scanName(b, i)
		if !ok {
			return 0, levels, false
		}
		start, ok := colon(b, end)
		if !ok {
			return 0, levels, false
		}
		descend := k < len(path) && name == path[k]
		if descend {
			for j := k + 1; j < len(levels); j++ { // a later member of the name replaces this one
				levels[j] = levels[j][:0]
			}
		}
		if descend && start < len(b) && b[start] == '{' {
			end, levels, ok = readObject(b, start, depth+1, levels, k+1, path)
		} else {
			end, ok = scanValue(b, start, depth+1)
		}
		if !ok {
			return 0, levels, false
		}
		levels[k] = append(levels[k], Member{name, b[start:end:end]})
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i >= len(b) || b[i] != '}' {
			return 0, levels, false
		}
		return i + 1, levels, true
	}
}
