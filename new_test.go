package fnapi_test

import (
	"strings"
	"testing"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/registry"
)

// TestNewRefuses checks that a server is refused at start-up, with a message naming the
// problem, when its registry serves nothing or breaks its own versions.
func TestNewRefuses(t *testing.T) {
	if _, err := fnapi.New(registry.New()); err == nil || !strings.Contains(err.Error(), "no function") {
		t.Errorf("empty registry: %v", err)
	}
	reg := registry.New()
	reg.MustRegister("report", func(struct {
		From string `json:"from"`
	}) {
	}, registry.Until("1.1"))
	reg.MustRegister("report", func(struct {
		From string `json:"from"`
		To   string `json:"to"`
	}) {
	}, registry.Since("1.1"))
	_, err := fnapi.New(reg)
	if err == nil || !strings.Contains(err.Error(), `"report"`) || !strings.Contains(err.Error(), `adds required argument "to"`) {
		t.Fatalf("a minor step adding a required argument: %v", err)
	}
}
