package registry

import (
	"strings"
	"testing"
)

func TestFuncKey(t *testing.T) {
	t.Parallel()
	tests := []struct{ runtime, want string }{
		{"github.com/acme/api.Greet", "github.com/acme/api.Greet"},
		{"github.com/acme/api.greet", "github.com/acme/api.greet"},
		{"main.greet", "main.greet"},
		{"github.com/acme/api.(*Service).List-fm", "github.com/acme/api.Service.List"},
		{"github.com/acme/api.Service.List-fm", "github.com/acme/api.Service.List"},
		{"github.com/acme/api.Map[...]", "github.com/acme/api.Map"},
		{"github.com/acme/api.(*Store[...]).Get-fm", "github.com/acme/api.Store.Get"},
		{"gopkg.in/acme%2ev3.Greet", "gopkg.in/acme.v3.Greet"},
		{"github.com/acme/api.Register.func1", ""},
		{"github.com/acme/api.Register.func1.2", ""},
		{"github.com/acme/api.glob..func1", ""},
		{"github.com/acme/api.(*Service).Routes.func3", ""},
		{"github.com/acme/api.init.func1", ""},
		{"nodot", ""},
	}
	for _, tt := range tests {
		t.Run(tt.runtime, func(t *testing.T) {
			if got := funcKey(tt.runtime); got != tt.want {
				t.Errorf("funcKey(%q) = %q, want %q", tt.runtime, got, tt.want)
			}
		})
	}
}

func FuzzFuncKey(f *testing.F) {
	for _, s := range []string{"main.f", "a/b.(*T[...]).M-fm", "a/b%2ec.F", "a.glob..func1", "", "[", "a/b.", "/."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		key := funcKey(name)
		if key != "" && (strings.Contains(key, "[") || strings.HasSuffix(key, "-fm") || strings.HasSuffix(key, ".")) {
			t.Errorf("funcKey(%q) = %q", name, key)
		}
	})
}
