package apierr_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/apierr"
)

func TestMessage(t *testing.T) {
	t.Parallel()
	e := apierr.New(apierr.TooFewArguments, "names", []string{"title", "queries"}, "count", 2, "type", "reserved", "dangling")
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"error","error":"TOO-FEW-ARGUMENTS","count":2,"names":["title","queries"]}`
	if string(b) != want {
		t.Fatalf("message %s, want %s", b, want)
	}
	var back apierr.Error
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if count := back.Attr("count"); back.Code() != apierr.TooFewArguments.Code() || fmt.Sprint(count) != "2" {
		t.Fatalf("decoded %+v", back)
	}
	if err := json.Unmarshal([]byte(`{"type":"error"}`), &back); err == nil {
		t.Fatal("a message without a code decoded")
	}
}

func TestWithCopies(t *testing.T) {
	t.Parallel()
	base := apierr.New(apierr.NotFound)
	a := base.With("name", "a")
	if _, ok := base.LookupAttr("name"); ok {
		t.Fatalf("With changed its receiver: %v %v", base, a)
	}
	if a.Attr("name") != "a" {
		t.Fatalf("With changed its receiver: %v %v", base, a)
	}
	if a.WithStatus(418).Status() != 418 || a.Status() != 404 {
		t.Fatal("WithStatus changed its receiver or was ignored")
	}
}

func TestFrom(t *testing.T) {
	t.Parallel()
	secret := errors.New("dial tcp 10.0.0.1:5432: password authentication failed")
	tests := []struct {
		err  error
		want *apierr.Declaration
	}{
		{apierr.New(apierr.Conflict), apierr.Conflict},
		{apierr.Unavailable, apierr.Unavailable},
		{fmt.Errorf("wrapped: %w", apierr.New(apierr.NotFound)), apierr.NotFound},
		{context.Canceled, apierr.Cancelled},
		{fmt.Errorf("query: %w", context.DeadlineExceeded), apierr.Timeout},
		{secret, apierr.Internal},
	}
	for _, tt := range tests {
		e := apierr.From(tt.err)
		if e.Code() != tt.want.Code() {
			t.Errorf("From(%v) = %s, want %s", tt.err, e.Code(), tt.want.Code())
		}
	}
	if apierr.From(nil) != nil {
		t.Error("From(nil) is not nil")
	}
	internal := apierr.From(secret)
	b, _ := json.Marshal(internal)
	if string(b) != `{"type":"error","error":"INTERNAL-ERROR"}` {
		t.Errorf("an internal error leaks: %s", b)
	}
	if !errors.Is(internal, secret) {
		t.Error("the cause is lost for the log")
	}
	if !errors.Is(fmt.Errorf("x: %w", apierr.New(apierr.NotFound, "name", "n")), apierr.New(apierr.NotFound)) {
		t.Error("errors.Is does not match by code")
	}
}

func TestStatus(t *testing.T) {
	t.Parallel()
	querySyntax := apierr.Declare("QUERY-SYNTAX", http.StatusBadRequest, "A query is not valid.")
	limit := apierr.Declare("LIMIT-REACHED", http.StatusConflict, "Full.")
	for d, want := range map[*apierr.Declaration]int{
		apierr.TooFewArguments: 400, apierr.AuthenticationNeeded: 401, apierr.UnknownVersion: 404,
		apierr.Conflict: 409, apierr.RequestTooLarge: 413, apierr.RateLimited: 429,
		apierr.Cancelled: 499, apierr.Internal: 500, querySyntax: 400, limit: 409,
	} {
		if got := apierr.New(d).Status(); got != want {
			t.Errorf("%s: status %d, want %d", d.Code(), got, want)
		}
	}
	if got := apierr.New(limit).WithStatus(http.StatusServiceUnavailable).Status(); got != 503 {
		t.Errorf("WithStatus: status %d", got)
	}
}

func ExampleNew() {
	err := apierr.New(apierr.NotFound, "name", "dashboard-7")
	b, _ := json.Marshal(err)
	fmt.Println(string(b), err.Status())
	// Output: {"type":"error","error":"NOT-FOUND","name":"dashboard-7"} 404
}

// TestNewMalformed: a malformed name/value pair is kept out of the message but named by Error
// (the log) and Malformed; the well-formed pairs are sent.
func TestNewMalformed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		attrs     []any
		malformed []any
	}{
		{"well formed", []any{"name", "x"}, nil},
		{"trailing name", []any{"name", "x", "path"}, []any{"path"}},
		{"name not a string", []any{7, "v", "name", "x"}, []any{7, "v"}},
		{"name of the message's own", []any{"type", "t", "name", "x"}, []any{"type", "t"}},
		{"not declared", []any{"name", "x", "owner", "ann"}, []any{"owner", "ann"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := apierr.New(apierr.NotFound, tt.attrs...)
			b, _ := json.Marshal(e)
			if string(b) != `{"type":"error","error":"NOT-FOUND","name":"x"}` {
				t.Errorf("message %s", b)
			}
			if !reflect.DeepEqual(e.Malformed(), tt.malformed) {
				t.Errorf("Malformed() = %v, want %v", e.Malformed(), tt.malformed)
			}
			if got := strings.Contains(e.Error(), "malformed attributes"); got != (tt.malformed != nil) {
				t.Errorf("Error() = %q", e.Error())
			}
		})
	}
}

// TestWithUndeclared: With sends only the attributes the code declares, as New does; a
// decoded error of a code the client does not know keeps every attribute its server sent.
func TestWithUndeclared(t *testing.T) {
	t.Parallel()
	e := apierr.New(apierr.NotFound, "name", "x").With("owner", "ann").With("object", "dashboard")
	b, _ := json.Marshal(e)
	if string(b) != `{"type":"error","error":"NOT-FOUND","name":"x","object":"dashboard"}` {
		t.Errorf("message %s", b)
	}
	if !reflect.DeepEqual(e.Malformed(), []any{"owner", "ann"}) {
		t.Errorf("Malformed() = %v", e.Malformed())
	}
	var d apierr.Error
	if err := json.Unmarshal([]byte(`{"type":"error","error":"NOT-WELCOME","who":"x"}`), &d); err != nil {
		t.Fatal(err)
	}
	if d.With("why", "y").Attr("why") != "y" || d.Attr("who") != "x" {
		t.Errorf("decoded %v", d.Error())
	}
}

// TestCodeOf: the code of any error, as the client would get it.
func TestCodeOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want apierr.Code
	}{
		{nil, ""},
		{apierr.New(apierr.Conflict), "CONFLICT"},
		{fmt.Errorf("saving: %w", apierr.New(apierr.NotFound)), "NOT-FOUND"},
		{fmt.Errorf("saving: %w", apierr.Unavailable), "UNAVAILABLE"},
		{context.Canceled, "CANCELLED"},
		{fmt.Errorf("query: %w", context.DeadlineExceeded), "TIMEOUT"},
		{errors.New("disk full"), "INTERNAL-ERROR"},
	}
	for _, tt := range tests {
		if got := apierr.CodeOf(tt.err); got != tt.want {
			t.Errorf("CodeOf(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
