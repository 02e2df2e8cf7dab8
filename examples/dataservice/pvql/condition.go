package pvql

import "strings"

// Condition reports whether the statement has a HAVING clause: an alert rule's condition.
func (s *Statement) Condition() bool { return s.having != nil }

// TimeKeyed reports whether one of the statement's keys is time(N).
func (s *Statement) TimeKeyed() bool {
	for _, k := range s.Keys() {
		if strings.HasPrefix(k, "time(") {
			return true
		}
	}
	return false
}
