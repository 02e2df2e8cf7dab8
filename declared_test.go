package fnapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
)

// quotaExceeded is an application's code, declared once: no return site states its status.
var quotaExceeded = apierr.Declare("QUOTA-EXCEEDED", http.StatusPaymentRequired,
	"The account has used its monthly quota.",
	apierr.Attr("quota", "the monthly quota, in calls").Typed("integer"),
	apierr.Attr("plan", "the account's plan").Typed("string"))

// declaredServer serves spend, which answers QUOTA-EXCEEDED, over real TLS at /api.
func declaredServer(t *testing.T) *httptest.Server {
	t.Helper()
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	reg.MustRegister("spend", func(context.Context, struct{}) (bool, error) {
		return false, apierr.New(quotaExceeded, "quota", 1000, "plan", "free")
	}, registry.Requires(decl.Public), registry.Errors(quotaExceeded))
	api, err := fnapi.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(http.StripPrefix("/api", api))
	t.Cleanup(srv.Close)
	return srv
}

func getJSON(t *testing.T, srv *httptest.Server, path string) (int, []byte) {
	t.Helper()
	res, err := srv.Client().Get(srv.URL + "/api" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// TestDeclaredStatus: an error of an application's declared code answers the declared status,
// with the message the wire format has always had, and a client matches it by its declaration.
func TestDeclaredStatus(t *testing.T) {
	t.Parallel()
	srv := declaredServer(t)
	status, b := getJSON(t, srv, "/spend")
	if want := `{"type":"error","error":"QUOTA-EXCEEDED","plan":"free","quota":1000}`; status != http.StatusPaymentRequired || string(b) != want {
		t.Fatalf("answer %d %s, want 402 %s", status, b, want)
	}
	// In a stream, the error travels inside the 200 answer.
	status, b = getJSON(t, srv, "/stream/spend")
	if status != http.StatusOK || !strings.Contains(string(b), `"error":"QUOTA-EXCEEDED"`) {
		t.Fatalf("stream answer %d %s", status, b)
	}
	c, err := client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	err = c.Call(t.Context(), "spend", nil, nil)
	var e *apierr.Error
	if !errors.Is(err, quotaExceeded) || apierr.CodeOf(err) != "QUOTA-EXCEEDED" || !errors.As(err, &e) || e.Attr("quota") != 1000.0 {
		t.Fatalf("client got %v", err)
	}
}

// TestDeclaredDescribed: doc and its OpenAPI document describe the application's code in full:
// status, description and attributes, as declared.
func TestDeclaredDescribed(t *testing.T) {
	t.Parallel()
	srv := declaredServer(t)
	_, b := getJSON(t, srv, "/doc")
	var d struct {
		Result struct {
			DeclaredErrors []struct {
				Code        string            `json:"code"`
				Status      int               `json:"status"`
				Description string            `json:"description"`
				Attributes  map[string]string `json:"attributes"`
				Types       map[string]string `json:"types"`
			} `json:"declared_errors"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &d); err != nil || len(d.Result.DeclaredErrors) != 1 {
		t.Fatalf("doc: %v %s", err, b)
	}
	got := d.Result.DeclaredErrors[0]
	if got.Code != "QUOTA-EXCEEDED" || got.Status != 402 || got.Description != quotaExceeded.Description() ||
		got.Attributes["quota"] != "the monthly quota, in calls" || got.Types["plan"] != "string" {
		t.Errorf("doc describes %+v", got)
	}

	_, b = getJSON(t, srv, `/doc?format="openapi"`)
	var o struct {
		Result struct {
			Paths map[string]map[string]struct {
				Responses map[string]json.RawMessage `json:"responses"`
			} `json:"paths"`
			Components struct {
				Schemas map[string]struct {
					Description string                     `json:"description"`
					Properties  map[string]json.RawMessage `json:"properties"`
				} `json:"schemas"`
			} `json:"components"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	if _, ok := o.Result.Paths["/spend"]["post"].Responses["402"]; !ok {
		t.Errorf("spend has no 402 response: %v", o.Result.Paths["/spend"]["post"].Responses)
	}
	s := o.Result.Components.Schemas["Error-QUOTA-EXCEEDED"]
	if !strings.Contains(s.Description, "monthly quota") || !strings.Contains(s.Description, "402") ||
		string(s.Properties["quota"]) != `{"type":"integer","description":"the monthly quota, in calls"}` {
		t.Errorf("OpenAPI schema of the code: %+v", s)
	}
}

// TestDeclaredOnce: a second declaration of a code, or an application's declaration of a
// framework code, is refused at registration, naming the code.
func TestDeclaredOnce(t *testing.T) {
	t.Parallel()
	again := apierr.Declare("QUOTA-EXCEEDED", http.StatusTooManyRequests, "Another meaning.")
	notFound := apierr.Declare("NOT-FOUND", http.StatusGone, "Gone.")
	reg := registry.New()
	reg.MustRegister("a", func() {}, registry.Errors(quotaExceeded))
	for _, d := range []*apierr.Declaration{again, notFound} {
		err := reg.Register("b", func() {}, registry.Errors(d))
		if err == nil || !strings.Contains(err.Error(), string(d.Code())) {
			t.Errorf("a second declaration of %s: %v", d.Code(), err)
		}
	}
	if err := reg.Register("c", func() {}, registry.Errors(quotaExceeded, apierr.NotFound)); err != nil {
		t.Errorf("the same declarations again: %v", err)
	}
	if err := reg.Register("d", func() {}, registry.Errors(nil)); err == nil {
		t.Error("a nil declaration was taken")
	}
}
