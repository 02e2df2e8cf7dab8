package state

import (
	"encoding/json"
	"time"
)

// AuditEvent is one change recorded in the audit trail: who made it, from where, what, when.
type AuditEvent struct {
	// ID orders the events: a later event has a larger ID. Assigned by the store.
	ID int64 `json:"id"`
	// Time is when the change was made, to the millisecond. Assigned by the store.
	Time time.Time `json:"time"`
	// User made the change.
	User string `json:"user"`
	// Key is the name of the API key the call carried; empty for a session.
	Key string `json:"key,omitempty"`
	// Address is the client's IP address.
	Address string `json:"address"`
	// Action is what was done: the function called, such as set-config or create-user.
	Action string `json:"action"`
	// Details holds what the change was about, as a JSON object (the user created and its
	// role, the configuration values set, the key revoked); never a password or a token.
	Details json.RawMessage `json:"details"`
}
