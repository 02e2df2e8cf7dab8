package apierr

import (
	"fmt"
	"regexp"
	"slices"
)

// Code is an error code as it travels, the error attribute of an error message:
// self-explanatory, in UPPER-KEBAB case. Codes compare by name: an error a client decoded has
// the code its server declared.
type Code string

// A Declaration is an error code declared once with what goes with it: the HTTP status that
// accompanies its error messages outside a stream, a description of when it is answered, and
// the extra attributes its messages carry. An error built from it (see New) answers its status
// without anything more at the return site, and doc describes it fully for every function that
// states it may answer it (registry.Errors, decl.Errors).
//
// A package declares its codes as variables, once:
//
//	var LimitReached = apierr.Declare("LIMIT-REACHED", http.StatusConflict,
//		"The store holds as many objects of a kind as it allows.",
//		apierr.Attr("name", "what is full").Typed("string"),
//		apierr.Attr("limit", "how many it allows").Typed("integer"))
//
// A Declaration is immutable and safe to share between goroutines. It is also an error value
// that stands for every error of its code, so that errors.Is(err, LimitReached) reports whether
// err is (or wraps) an error with the code LIMIT-REACHED, wherever it was built or decoded.
// Returned as it is, a Declaration is answered as an error of its code without attributes.
type Declaration struct {
	code        Code
	status      int
	description string
	attrs       []Attribute
	open        bool // known only by its code (decoded): any attribute is accepted
}

// An Attribute describes an extra attribute of an error message: its name, what it means and,
// when the declaration gives it, its JSON type.
type Attribute struct {
	name, meaning, typ string
}

// Attr describes the attribute name of a declared code, with its meaning.
func Attr(name, meaning string) Attribute { return Attribute{name: name, meaning: meaning} }

// Typed returns a copy of a that states the JSON type of its values: "string", "integer",
// "number", "boolean", "array" or "object". Default: no type stated (any JSON value).
func (a Attribute) Typed(jsonType string) Attribute { a.typ = jsonType; return a }

// Name returns the attribute's name in the error message.
func (a Attribute) Name() string { return a.name }

// Meaning says what the attribute holds.
func (a Attribute) Meaning() string { return a.meaning }

// Type returns the JSON type of the attribute's values, "" when not stated.
func (a Attribute) Type() string { return a.typ }

var (
	codeSyntax = regexp.MustCompile(`^[A-Z][A-Z0-9]*(-[A-Z0-9]+)*$`)
	jsonTypes  = []string{"", "string", "integer", "number", "boolean", "array", "object"}
)

// Declare returns the declaration of code c, answered with HTTP status (400 to 599), described
// by description, its messages carrying attrs. It is meant for package-level variables: it
// panics when the declaration is wrong (a code not in UPPER-KEBAB case, a status outside 4xx
// and 5xx, an attribute named type, error or id, which the message itself uses, an attribute
// named twice or with an unknown JSON type), as regexp.MustCompile does, so that the mistake
// shows at start-up.
func Declare(c Code, status int, description string, attrs ...Attribute) *Declaration {
	if err := check(c, status, attrs); err != nil {
		panic(fmt.Sprintf("apierr: declaring %q: %v", c, err))
	}
	return &Declaration{code: c, status: status, description: description, attrs: slices.Clone(attrs)}
}

func check(c Code, status int, attrs []Attribute) error {
	if !codeSyntax.MatchString(string(c)) {
		return fmt.Errorf("a code is in UPPER-KEBAB case (%s)", codeSyntax)
	}
	if status < 400 || status > 599 {
		return fmt.Errorf("status %d is not an error status (400 to 599)", status)
	}
	seen := map[string]bool{}
	for _, a := range attrs {
		switch {
		case a.name == "" || reserved(a.name):
			return fmt.Errorf("attribute %q: the name is empty or the message's own (type, error, id)", a.name)
		case seen[a.name]:
			return fmt.Errorf("attribute %q declared twice", a.name)
		case !slices.Contains(jsonTypes, a.typ):
			return fmt.Errorf("attribute %q: unknown JSON type %q (one of %q)", a.name, a.typ, jsonTypes[1:])
		}
		seen[a.name] = true
	}
	return nil
}

func reserved(name string) bool { return name == "type" || name == "error" || name == "id" }

// undeclared stands for a code known only by its name: one a client decoded without knowing
// its declaration. It answers HTTP 400.
func undeclared(c Code) *Declaration { return &Declaration{code: c, status: 400, open: true} }

// declares reports whether d declares the attribute name, or accepts any (a code known only
// by its name).
func (d *Declaration) declares(name string) bool {
	if d.open {
		return true
	}
	for _, a := range d.attrs {
		if a.name == name {
			return true
		}
	}
	return false
}

// Code returns the declared code.
func (d *Declaration) Code() Code { return d.code }

// Status returns the HTTP status that accompanies the code's error messages outside a stream.
func (d *Declaration) Status() int { return d.status }

// Description says when the code is answered.
func (d *Declaration) Description() string { return d.description }

// Attributes returns the declared attributes, in declaration order: a copy, which the caller
// may change.
func (d *Declaration) Attributes() []Attribute { return slices.Clone(d.attrs) }

// Error returns the code, so that a Declaration can be the target of errors.Is.
func (d *Declaration) Error() string { return string(d.code) }

// Is reports whether target is a declaration or an *Error of the same code.
func (d *Declaration) Is(target error) bool { return sameCode(d.code, target) }

func sameCode(c Code, target error) bool {
	switch t := target.(type) {
	case *Declaration:
		return t.code == c
	case *Error:
		return t.Declaration().code == c
	}
	return false
}
