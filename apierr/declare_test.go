package apierr_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/apierr"
)

var limitReached = apierr.Declare("LIMIT-REACHED", http.StatusConflict, "The store is full.",
	apierr.Attr("name", "what is full").Typed("string"),
	apierr.Attr("limit", "how many it allows").Typed("integer"))

// TestDeclared: an error of a declared code answers the declared status and matches its
// declaration with errors.Is, also once a client decoded it.
func TestDeclared(t *testing.T) {
	t.Parallel()
	e := apierr.New(limitReached, "name", "dashboards", "limit", 2)
	if e.Status() != http.StatusConflict || e.Code() != "LIMIT-REACHED" || e.Declaration() != limitReached {
		t.Fatalf("status %d, code %s", e.Status(), e.Code())
	}
	wrapped := fmt.Errorf("saving: %w", e)
	if !errors.Is(wrapped, limitReached) || errors.Is(wrapped, apierr.NotFound) || apierr.CodeOf(wrapped) != limitReached.Code() {
		t.Fatalf("errors.Is or CodeOf do not match by code: %v", wrapped)
	}
	b, _ := json.Marshal(e)
	var back apierr.Error
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(&back, limitReached) || !errors.Is(limitReached, &back) {
		t.Fatal("a decoded error does not match its declaration")
	}
	var nf apierr.Error
	_ = json.Unmarshal([]byte(`{"type":"error","error":"NOT-FOUND"}`), &nf)
	if nf.Declaration() != apierr.NotFound || nf.Status() != 404 {
		t.Fatalf("a decoded framework code has declaration %v, status %d", nf.Declaration(), nf.Status())
	}
	if e := apierr.New(nil); e.Code() != "INTERNAL-ERROR" || e.Status() != 500 {
		t.Fatalf("New(nil) = %v", e)
	}
	var zero apierr.Error
	if b, _ := json.Marshal(&zero); zero.Code() != "INTERNAL-ERROR" || string(b) != `{"type":"error","error":"INTERNAL-ERROR"}` || errors.Is(&zero, limitReached) {
		t.Fatalf("the zero Error is %s", b)
	}
	// A declaration returned as it is answers as an error of its code.
	if e := apierr.From(fmt.Errorf("x: %w", apierr.Unavailable)); e.Code() != "UNAVAILABLE" || e.Status() != 503 {
		t.Fatalf("From(declaration) = %v", e)
	}
}

// TestReadOnly: what a caller gets from an error, a declaration or the catalogue is its own
// copy; changing it changes neither the error's message nor the declaration.
func TestReadOnly(t *testing.T) {
	t.Parallel()
	e := apierr.New(limitReached, "name", "dashboards", "limit", 2)
	attrs := maps.Collect(e.Attrs())
	attrs["limit"] = 1000
	attrs["secret"] = "leaked"
	b, _ := json.Marshal(e)
	if want := `{"type":"error","error":"LIMIT-REACHED","limit":2,"name":"dashboards"}`; string(b) != want {
		t.Fatalf("message %s, want %s", b, want)
	}
	if v, ok := e.LookupAttr("limit"); !ok || v != 2 {
		t.Fatalf("Attr(limit) = %v, %v", v, ok)
	}
	if _, ok := e.LookupAttr("secret"); ok {
		t.Fatal("an attribute was added from outside")
	}

	declared := limitReached.Attributes()
	declared[0] = apierr.Attr("changed", "")
	if limitReached.Attributes()[0].Name() != "name" {
		t.Fatal("a declaration's attributes were changed from outside")
	}

	cat := apierr.Catalogue()
	cat[0] = limitReached
	if apierr.Catalogue()[0] != apierr.TooFewArguments {
		t.Fatal("the catalogue was changed from outside")
	}

	m := apierr.New(apierr.NotFound, 7, "x")
	m.Malformed()[0] = "y"
	if m.Malformed()[0] != 7 {
		t.Fatal("Malformed shares its slice")
	}
}

// TestCatalogue: every framework code is declared once, with an error status and a
// description, and the catalogue holds each exactly once.
func TestCatalogue(t *testing.T) {
	t.Parallel()
	seen := map[apierr.Code]bool{}
	for _, d := range apierr.Catalogue() {
		if seen[d.Code()] || d.Status() < 400 || d.Description() == "" {
			t.Errorf("%s: twice, or status %d, or no description", d.Code(), d.Status())
		}
		seen[d.Code()] = true
	}
	if len(seen) != 23 {
		t.Errorf("%d codes", len(seen))
	}
}

// TestDeclareRefuses: a wrong declaration panics at start-up, naming the code and the problem.
func TestDeclareRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		code   apierr.Code
		status int
		attrs  []apierr.Attribute
		want   string
	}{
		{"lower case", "limit-reached", 409, nil, "UPPER-KEBAB"},
		{"empty", "", 409, nil, "UPPER-KEBAB"},
		{"not an error status", "FINE", 200, nil, "status 200"},
		{"reserved attribute", "X", 400, []apierr.Attribute{apierr.Attr("type", "")}, `"type"`},
		{"attribute twice", "X", 400, []apierr.Attribute{apierr.Attr("a", ""), apierr.Attr("a", "")}, "twice"},
		{"unknown type", "X", 400, []apierr.Attribute{apierr.Attr("a", "").Typed("int")}, "JSON type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if r := fmt.Sprint(recover()); !strings.Contains(r, tt.want) {
					t.Errorf("panic %q, want it to say %q", r, tt.want)
				}
			}()
			apierr.Declare(tt.code, tt.status, "", tt.attrs...)
		})
	}
}

func ExampleDeclare() {
	limitReached := apierr.Declare("LIMIT-REACHED", http.StatusConflict,
		"The store holds as many objects of a kind as it allows.",
		apierr.Attr("name", "what is full").Typed("string"),
		apierr.Attr("limit", "how many it allows").Typed("integer"))

	err := fmt.Errorf("create-dashboard: %w", apierr.New(limitReached, "name", "dashboards", "limit", 100))
	b, _ := json.Marshal(apierr.From(err))
	fmt.Println(string(b), apierr.From(err).Status(), errors.Is(err, limitReached))
	// Output: {"type":"error","error":"LIMIT-REACHED","limit":100,"name":"dashboards"} 409 true
}
