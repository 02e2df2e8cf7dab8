package registry

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"unicode"
)

// Comments returns an option that takes descriptions from Go doc comments: the description of
// the function (when Describe is not given), of its arguments struct, and of each argument and
// each field of the result (when no jsonschema description tag is given).
//
// data is the JSON object written by the gencomments command (package
// github.com/fnapi/fnapi/doc/gencomments), which reads the comments from the source at build
// time; embed it, since a deployed binary has no source tree:
//
//	//go:generate go run github.com/fnapi/fnapi/doc/gencomments -out comments.json .
//	//go:embed comments.json
//	var comments []byte
//
//	reg := registry.New(registry.Comments(comments))
//
// Given to New it applies to every function; given to Register, to that function. Data that is
// not such an object makes every Register it applies to fail, naming the problem.
//
// A function's comment is found by the name the Go runtime gives the function: package-level
// functions and method values (s.Method) have theirs. A function literal (a closure) has no doc
// comment and gets none: give it Describe.
func Comments(data []byte) Option {
	var m map[string]string
	err := json.Unmarshal(data, &m)
	if err == nil && m == nil {
		err = fmt.Errorf("not a JSON object")
	}
	return func(f *Func) error {
		if err != nil {
			return fmt.Errorf("Comments: the comments JSON: %w", err)
		}
		f.comments = m
		return nil
	}
}

// describeFromComments sets the function's description from its doc comment, unless Describe
// gave one.
func (f *Func) describeFromComments() {
	if f.Description != "" || f.comments == nil {
		return
	}
	if rf := runtime.FuncForPC(f.fn.Pointer()); rf != nil {
		if key := funcKey(rf.Name()); key != "" {
			f.Description = f.comments[key]
		}
	}
}

// funcKey returns the key under which the comments JSON holds the doc comment of the function
// the runtime names name: "import/path.Name" for a function, "import/path.Type.Method" for a
// method (pointer receiver or not), with package main's under "main". It returns "" for a
// function literal, which has no doc comment.
func funcKey(name string) string {
	name = strings.TrimSuffix(name, "-fm") // a method value
	name = dropTypeArgs(name)
	if strings.ContainsAny(name, "[]") {
		return "" // not a name the runtime gives
	}
	slash := strings.LastIndexByte(name, '/')
	dot := strings.IndexByte(name[slash+1:], '.')
	if dot < 0 {
		return ""
	}
	pkg, ident := name[:slash+1+dot], name[slash+1+dot+1:]
	pkg = strings.ReplaceAll(pkg, "%2e", ".") // the linker escapes dots in the last element
	parts := strings.Split(ident, ".")
	switch len(parts) {
	case 1:
	case 2: // a method: (*T).M or T.M
		parts[0] = strings.TrimSuffix(strings.TrimPrefix(parts[0], "(*"), ")")
	default:
		return "" // a closure: outer.func1, glob..func1, T.M.func2
	}
	for _, p := range parts {
		if !isIdent(p) || strings.HasPrefix(p, "func") && strings.Trim(p[4:], "0123456789") == "" {
			return ""
		}
	}
	if pkg == "" {
		return ""
	}
	return pkg + "." + strings.Join(parts, ".")
}

// isIdent reports whether s is a Go identifier.
func isIdent(s string) bool {
	for i, r := range s {
		if !unicode.IsLetter(r) && r != '_' && (i == 0 || !unicode.IsDigit(r)) {
			return false
		}
	}
	return s != ""
}

// dropTypeArgs removes the "[...]" of a generic function's or type's name.
func dropTypeArgs(name string) string {
	for {
		i := strings.IndexByte(name, '[')
		if i < 0 {
			return name
		}
		j := strings.IndexByte(name[i:], ']')
		if j < 0 {
			return name
		}
		name = name[:i] + name[i+j+1:]
	}
}
