package decl

import (
	"errors"
	"fmt"
)

// CheckName returns an error when name cannot name a function: it must be non-empty, made of
// ASCII letters, digits, '-' and '_', and not "ws", "stream", "mcp" or "jsonrpc", which the
// transport's paths use. Func and Stream panic on such a name; the registry refuses it.
func CheckName(name string) error {
	if name == "" {
		return errors.New("empty function name")
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return fmt.Errorf("function name %q: use letters, digits, '-' and '_'", name)
		}
	}
	switch name {
	case "ws", "stream", "mcp", "jsonrpc":
		return fmt.Errorf("function name %q is reserved for the transport's paths", name)
	}
	return nil
}
