package load

import "bytes"

var idKey = []byte(`"id":`)

// responseID returns the id of a WebSocket answer: the first "id" member, a string of digits
// ("7", fnapi) or a number (7, JSON-RPC). It is a byte scan, not a JSON parse, to keep the load
// client's own cost low; the answers it reads are the targets' fixed echo messages.
func responseID(msg []byte) (uint64, bool) {
	i := bytes.Index(msg, idKey)
	if i < 0 {
		return 0, false
	}
	rest := bytes.TrimLeft(msg[i+len(idKey):], " \t\r\n")
	quoted := len(rest) > 0 && rest[0] == '"'
	if quoted {
		rest = rest[1:]
	}
	var id uint64
	n := 0
	for ; n < len(rest) && rest[n] >= '0' && rest[n] <= '9'; n++ {
		if n == 19 { // more digits than a uint64 surely holds
			return 0, false
		}
		id = id*10 + uint64(rest[n]-'0')
	}
	if n == 0 || quoted && (n == len(rest) || rest[n] != '"') {
		return 0, false
	}
	return id, true
}
