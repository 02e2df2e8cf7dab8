package manage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/label"
)

// Bounds on what one call may store. Titles and descriptions are counted in characters.
const (
	// MaxTitle is the longest title of a dashboard or widget.
	MaxTitle = 200
	// MaxDescription is the longest description of a dashboard.
	MaxDescription = 4000
	// MaxQueries is the most queries one widget shows.
	MaxQueries = 20
	// MaxQueryLength is the longest query of a widget, in characters.
	MaxQueryLength = 10_000
	// MaxOptionsBytes is the largest options object of a widget, in bytes of compact JSON.
	MaxOptionsBytes = 16 << 10
	// MaxIDLength is the longest ID an argument may give.
	MaxIDLength = 64
)

// Kinds are the kinds of widget: how a widget displays its queries' results.
var Kinds = []string{"number", "table", "timeseries", "bar", "pie"}

// checkTitle refuses a title label.Check refuses: blank or invisible, or holding control or
// bidirectional formatting characters (the schema bounds its length).
func checkTitle(name, title string) error {
	if reason := label.Check(title); reason != "" {
		return apierr.New(apierr.InvalidArgument, "name", name, "reason", reason)
	}
	return nil
}

// checkQueries checks the length and syntax of each query, in order; the first bad one is
// the error.
func checkQueries(queries []string, validate func(string) error) error {
	for i, q := range queries {
		if utf8.RuneCountInString(q) > MaxQueryLength {
			return apierr.New(apierr.InvalidArgument, "name", "queries", "index", i,
				"reason", fmt.Sprintf("query %d is longer than %d characters", i, MaxQueryLength))
		}
		if err := validate(q); err != nil {
			return queryError(err, i)
		}
	}
	return nil
}

// options checks a widget's options and returns them compact, as stored: a JSON object of at
// most MaxOptionsBytes bytes. Absent (or null) options are {}.
func options(o json.RawMessage) (json.RawMessage, error) {
	if len(o) == 0 || isNull(o) {
		return json.RawMessage(`{}`), nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, o); err != nil || b.Bytes()[0] != '{' {
		return nil, apierr.New(apierr.InvalidArgument, "name", "options", "reason", "must be a JSON object")
	}
	if b.Len() > MaxOptionsBytes {
		return nil, apierr.New(apierr.InvalidArgument, "name", "options",
			"reason", fmt.Sprintf("must be at most %d bytes of compact JSON, got %d", MaxOptionsBytes, b.Len()))
	}
	return json.RawMessage(b.Bytes()), nil
}
