package app_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/fnapi/fnapi/client"
)

// TestSameSiteForgery checks that a page of a sibling site cannot have the browser create a
// dashboard with the administrator's session cookie (an <img> would send a GET), while the
// service's own pages can.
func TestSameSiteForgery(t *testing.T) {
	t.Parallel()
	s := start(t)
	var session string
	if err := s.http(t).Call(context.Background(), "login",
		map[string]string{"user": "admin", "password": "correct horse battery staple"}, &session); err != nil {
		t.Fatal(err)
	}
	get := func(site string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest("GET", s.api+`/create-dashboard?title="Forged"`, nil)
		req.AddCookie(&http.Cookie{Name: "Svc-Session", Value: session})
		req.Header.Set("Sec-Fetch-Site", site)
		res, err := s.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, site := range []string{"same-site", "cross-site", "none"} {
		if m := get(site); m["error"] != "API-AUTHENTICATION-NEEDED" {
			t.Errorf("Sec-Fetch-Site %s: %v", site, m)
		}
	}
	var list []map[string]any
	if err := s.http(t, client.WithAPIKey(s.key)).Call(context.Background(), "list-dashboards", nil, &list); err != nil {
		t.Fatal(err)
	}
	for _, d := range list {
		if d["title"] == "Forged" {
			t.Fatalf("a forged call created %v", d)
		}
	}
	if m := get("same-origin"); m["type"] != "result" {
		t.Errorf("from the service's own page: %v", m)
	}
}
