package pvql

// Equal returns the literal of the statement's WHERE term `key = literal`, alone or ANDed with
// other terms, as the key's results show it ("udp" for protocol, 53 for a port), and whether
// it has one: what every record of its answer holds for key. Alert rules read it to narrow the
// routes they announce.
func (s *Statement) Equal(key string) (any, bool) {
	terms := []filter{s.where}
	if a, ok := s.where.(*andFilter); ok {
		terms = a.terms
	}
	for _, t := range terms {
		ff, ok := t.(*fieldFilter)
		if !ok || ff.op != opEq || len(ff.lits) != 1 || ff.lits[0].nested || ff.lits[0].from != ff.lits[0].to ||
			keyKinds[ff.field].name != key {
			continue
		}
		return keyKinds[ff.field].typ.render(ff.lits[0].from, nil), true
	}
	return nil, false
}
