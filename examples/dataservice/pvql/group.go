package pvql

import (
	"cmp"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// gkey identifies a group: the values of the statement's keys, placed by its layout (a time in
// time, strings in s, other values in words of w); unused fields stay zero.
type gkey struct {
	time int64
	w    [maxWords]uint64
	s    [maxStrings]string
}

// maxStrings is how many string slots a gkey holds: every string key and extra name of one
// layer at once (TestDescriptors checks).
const maxStrings = 20

// slot is where one BY key's value lives in a gkey.
type slot struct {
	time bool
	str  bool
	word int // first word in w, or with str the index in s
	typ  *keyType
	// at is the index of the key's value in a records.Row's Keys; its extra names (keyKinds'
	// extra) follow it there, and live in s at the indexes extra.
	at    int
	extra []int
}

// layout places the keys of a statement in a gkey.
func layout(keys []key) []slot {
	out := make([]slot, len(keys))
	word, strs, at := 0, 0, 0
	for i, k := range keys {
		t := keyKinds[k.kind].typ
		out[i] = slot{time: k.kind == kTime, str: t.words == 0 && k.kind != kTime, word: word, typ: t, at: at}
		switch {
		case out[i].str:
			out[i].word = strs
			strs++
		case !out[i].time:
			word += t.words
		}
		for range keyKinds[k.kind].extra {
			out[i].extra = append(out[i].extra, strs)
			strs++
		}
		at += 1 + len(keyKinds[k.kind].extra)
	}
	return out
}

// setKey sets k to the values of a row's keys, placed by slots.
func setKey(slots []slot, k *gkey, keys []records.Value) {
	for _, s := range slots {
		s.set(k, keys[s.at])
		for j, e := range s.extra {
			k.s[e] = keys[s.at+1+j].Str
		}
	}
}

// render returns the key's value in k as a Row shows it.
func (s slot) render(k *gkey) any {
	var extra []string
	for _, e := range s.extra {
		extra = append(extra, k.s[e])
	}
	return s.typ.render(s.get(k), extra)
}

func (s slot) set(k *gkey, v records.Value) {
	switch {
	case s.time:
		k.time = int64(v.Lo)
	case s.str:
		k.s[s.word] = v.Str
	case s.typ.words == 2:
		k.w[s.word], k.w[s.word+1] = v.Hi, v.Lo
	default:
		k.w[s.word] = v.Lo
	}
}

func (s slot) get(k *gkey) records.Value {
	switch {
	case s.time:
		return records.Value{Lo: uint64(k.time)}
	case s.str:
		return records.Value{Str: k.s[s.word]}
	case s.typ.words == 2:
		return records.Value{Hi: k.w[s.word], Lo: k.w[s.word+1]}
	}
	return records.Value{Lo: k.w[s.word]}
}

// compareKeys orders a and b by the keys in layout order, ascending: times as signed numbers,
// other values by their halves, then their text; time keys are skipped when withTime is false.
func compareKeys(slots []slot, a, b *gkey, withTime bool) int {
	for _, s := range slots {
		if s.time {
			if c := cmp.Compare(a.time, b.time); withTime && c != 0 {
				return c
			}
			continue
		}
		va, vb := s.get(a), s.get(b)
		if c := cmp.Or(cmp.Compare(va.Hi, vb.Hi), cmp.Compare(va.Lo, vb.Lo), strings.Compare(va.Str, vb.Str)); c != 0 {
			return c
		}
		for _, e := range s.extra {
			if c := strings.Compare(a.s[e], b.s[e]); c != 0 {
				return c
			}
		}
	}
	return 0
}
