package apierr_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/apierr"
)

func TestMessage(t *testing.T) {
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
	if back.Code != apierr.TooFewArguments || fmt.Sprint(back.Attrs["count"]) != "2" {
		t.Fatalf("decoded %+v", back)
	}
	if err := json.Unmarshal([]byte(`{"type":"error"}`), &back); err == nil {
		t.Fatal("a message without a code decoded")
	}
}

func TestWithCopies(t *testing.T) {
	base := apierr.New(apierr.NotFound)
	a := base.With("name", "a")
	if base.Attrs != nil || a.Attrs["name"] != "a" {
		t.Fatalf("With changed its receiver: %v %v", base, a)
	}
	if a.WithStatus(418).Status() != 418 || a.Status() != 404 {
		t.Fatal("WithStatus changed its receiver or was ignored")
	}
}

func TestFrom(t *testing.T) {
	secret := errors.New("dial tcp 10.0.0.1:5432: password authentication failed")
	tests := []struct {
		err  error
		want apierr.Code
	}{
		{apierr.New(apierr.Conflict), apierr.Conflict},
		{fmt.Errorf("wrapped: %w", apierr.New(apierr.NotFound)), apierr.NotFound},
		{context.Canceled, apierr.Cancelled},
		{fmt.Errorf("query: %w", context.DeadlineExceeded), apierr.Timeout},
		{secret, apierr.Internal},
	}
	for _, tt := range tests {
		e := apierr.From(tt.err)
		if e.Code != tt.want {
			t.Errorf("From(%v) = %s, want %s", tt.err, e.Code, tt.want)
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
	for code, want := range map[apierr.Code]int{
		apierr.TooFewArguments: 400, apierr.AuthenticationNeeded: 401, apierr.UnknownVersion: 404,
		apierr.Conflict: 409, apierr.RequestTooLarge: 413, apierr.RateLimited: 429,
		apierr.Internal: 500, "QUERY-SYNTAX": 400,
	} {
		if got := code.Status(); got != want {
			t.Errorf("%s: status %d, want %d", code, got, want)
		}
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
	tests := []struct {
		name      string
		attrs     []any
		malformed []any
	}{
		{"well formed", []any{"name", "x"}, nil},
		{"trailing name", []any{"name", "x", "path"}, []any{"path"}},
		{"name not a string", []any{7, "v", "name", "x"}, []any{7, "v"}},
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

// TestCodeOf: the code of any error, as the client would get it.
func TestCodeOf(t *testing.T) {
	tests := []struct {
		err  error
		want apierr.Code
	}{
		{nil, ""},
		{apierr.New(apierr.Conflict), apierr.Conflict},
		{fmt.Errorf("saving: %w", apierr.New(apierr.NotFound)), apierr.NotFound},
		{context.Canceled, apierr.Cancelled},
		{fmt.Errorf("query: %w", context.DeadlineExceeded), apierr.Timeout},
		{errors.New("disk full"), apierr.Internal},
	}
	for _, tt := range tests {
		if got := apierr.CodeOf(tt.err); got != tt.want {
			t.Errorf("CodeOf(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
