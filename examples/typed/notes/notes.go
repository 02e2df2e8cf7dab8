// Package notes declares the functions of the typed example once, with their Go types, for the
// server (examples/typed) to implement and for its Go clients (examples/typed/client) to call.
// It imports only fnapi's declaration packages, so a client that imports it pulls neither the
// server's transport nor its storage.
package notes

import (
	"net/http"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
)

// MaxText is the longest note, in bytes.
const MaxText = 500

// Note is one note, as the server keeps it.
type Note struct {
	ID   int    `json:"id"`
	Text string `json:"text"`
}

// AddArgs are the arguments of add-note.
type AddArgs struct {
	// Text is what the note says.
	Text string `json:"text" jsonschema:"minLength=1"`
}

// ListArgs are the arguments of list-notes.
type ListArgs struct {
	// Contains keeps the notes whose text holds it; empty keeps every note.
	Contains string `json:"contains,omitempty"`
}

// TooLong is the answer to a note longer than MaxText.
var TooLong = apierr.Declare("NOTE-TOO-LONG", http.StatusBadRequest, "The note is longer than the server keeps.",
	apierr.Attr("limit", "the longest note, in bytes").Typed("integer"))

// Add is add-note: it keeps a note and returns it with its id.
var Add = decl.Func[AddArgs, Note]("add-note", decl.Requires(decl.Public), decl.Errors(TooLong),
	decl.Describe("Keeps a note and returns it with its id."))

// List is list-notes, added in 1.1: the notes kept, oldest first.
var List = decl.Func[ListArgs, []Note]("list-notes", decl.Since("1.1"), decl.Requires(decl.Public),
	decl.Describe("Lists the notes kept, oldest first."))
