package wsmessage

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/fnapi/fnapi/apierr"
)

func TestParseCall(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		msg    string
		want   Call
		reason string // the INVALID-MESSAGE reason; empty for a valid call
	}{
		{"call with a number id", `{"id":1,"call":"echo","args":{"a":[1, 2]}}`,
			Call{ID: "1", Name: "echo", Args: map[string]json.RawMessage{"a": json.RawMessage("[1, 2]")}}, ""},
		{"stream with a string id", `{"id":"x","stream":"count","args":{}}`,
			Call{ID: "x", Name: "count", Stream: true, Args: map[string]json.RawMessage{}}, ""},
		{"other attributes ignored", ` {"id":-2.5e3,"call":"f","args":{},"jsonrpc":"2.0"} `,
			Call{ID: "-2.5e3", Name: "f", Args: map[string]json.RawMessage{}}, ""},
		{"meta for interceptors", `{"id":1,"call":"f","args":{},"meta":{"traceparent":"00-ab-cd-01"}}`,
			Call{ID: "1", Name: "f", Args: map[string]json.RawMessage{}, Meta: map[string]string{"traceparent": "00-ab-cd-01"}}, ""},
		{"meta not an object of strings", `{"id":1,"call":"f","args":{},"meta":{"a":1}}`,
			Call{ID: "1", Name: "f", Args: map[string]json.RawMessage{}}, "meta must be an object of strings"},
		{"meta an array", `{"id":1,"call":"f","args":{},"meta":["a"]}`,
			Call{ID: "1", Name: "f", Args: map[string]json.RawMessage{}}, "meta must be an object of strings"},
		{"not JSON", `{"id":1,`, Call{}, "the message is not JSON"},
		{"not an object", `[1,2]`, Call{}, "the message must be a JSON object"},
		{"empty", ``, Call{}, "the message is not JSON"},
		{"no id", `{"call":"echo","args":{}}`, Call{}, "id is required: a string or a number"},
		{"id of the wrong type", `{"id":true,"call":"echo","args":{}}`, Call{}, "id must be a non-empty string or a number"},
		{"empty id", `{"id":"","call":"echo","args":{}}`, Call{}, "id must be a non-empty string or a number"},
		{"both call and stream", `{"id":1,"call":"a","stream":"b","args":{}}`, Call{ID: "1"}, "the message must have exactly one of call and stream"},
		{"neither call nor stream", `{"id":1,"args":{}}`, Call{ID: "1"}, "the message must have exactly one of call and stream"},
		{"name not a string", `{"id":1,"call":7,"args":{}}`, Call{ID: "1"}, "call and stream name the function as a string"},
		{"missing args", `{"id":1,"call":"echo"}`, Call{ID: "1", Name: "echo"}, "args is required: an object of arguments, {} for none"},
		{"null args", `{"id":1,"call":"echo","args":null}`, Call{ID: "1", Name: "echo"}, "args is required: an object of arguments, {} for none"},
		{"args not an object", `{"id":1,"call":"echo","args":[1]}`, Call{ID: "1", Name: "echo"}, "args must be an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.msg))
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("error %v", err)
				}
			} else {
				var e *apierr.Error
				if !errors.As(err, &e) || e.Code() != apierr.InvalidMessage.Code() || e.Attr("reason") != tt.reason {
					t.Fatalf("error %v, want INVALID-MESSAGE reason=%q", err, tt.reason)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("call %+v, want %+v", got, tt.want)
			}
		})
	}
}

// FuzzParseCall checks that any message either parses into a call with an id and a name, or
// answers INVALID-MESSAGE, and never panics.
func FuzzParseCall(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"call":"echo","args":{"a":1}}`, `{"id":"a","stream":"count","args":{"n":3}}`,
		`{"id":1,"call":"a","stream":"b","args":{}}`, `[]`, `"x"`, `{"id":{},"call":"x","args":{}}`,
		`{"id":1e400,"call":"x","args":{}}`, `{"id":1,"call":"x","args":{},"meta":{"traceparent":"t"}}`, "{\"id\":\"\xff\",\"call\":\"x\",\"args\":{}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			var e *apierr.Error
			if !errors.As(err, &e) || e.Code() != apierr.InvalidMessage.Code() {
				t.Fatalf("error %v is not INVALID-MESSAGE", err)
			}
			return
		}
		if c.ID == "" || c.Args == nil {
			t.Fatalf("valid call without id or args: %+v", c)
		}
		if _, err := json.Marshal(c.Args); err != nil {
			t.Fatalf("args do not encode back: %v", err)
		}
	})
}

// FuzzParseCallFast checks that the one-pass reader of usual messages, whenever it accepts a
// message, reads it exactly as encoding/json does.
func FuzzParseCallFast(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"call":"echo","args":{"a":1,"b":"x"}}`, ` {"id" : "a", "stream":"count","args":{"n":[1,{"x":"}"}],"s":"a\"b"} } `,
		`{"id":-1.5e3,"call":"x","args":{}}`, `{"args":{"a":true,"a":false},"call":"x","id":"i"}`,
		`{"id":1,"call":"x","args":{"a":null}}`, `{"id":01,"call":"x","args":{}}`, `{"id":1,"call":"x","args":{"a":tru}}`,
		`{"id":1,"call":"x","args":{"a":"\u00e9"}}`, `{"id":1,"call":"x","args":{"a":1}}x`, `{"id":1,"call":"x","args":{"a":[1,]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, ok := parseFast(data)
		if !ok {
			return
		}
		slow, err := parseJSON(data)
		if err != nil {
			t.Fatalf("fast reader accepted %q, encoding/json refuses it: %v", data, err)
		}
		if fast.ID != slow.ID || fast.Name != slow.Name || fast.Stream != slow.Stream || len(fast.Args) != len(slow.Args) {
			t.Fatalf("%q: fast %+v, encoding/json %+v", data, fast, slow)
		}
		for k, v := range slow.Args {
			if string(fast.Args[k]) != string(v) {
				t.Fatalf("%q: argument %q: fast %s, encoding/json %s", data, k, fast.Args[k], v)
			}
		}
	})
}

// TestParseCallFastAccepts checks that usual messages take the one-pass reader.
func TestParseCallFastAccepts(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		`{"id":1,"call":"echo","args":{"a":1,"b":"x"}}`,
		`{"id":"a-1","stream":"count","args":{"n":3,"tags":["x","y"],"o":{"k":"v"}}}`,
		` { "args" : { } , "call" : "get-api-version" , "id" : 7 } `,
	} {
		t.Run(s, func(t *testing.T) {
			if _, ok := parseFast([]byte(s)); !ok {
				t.Fatal("the one-pass reader refused a usual message")
			}
		})
	}
}
