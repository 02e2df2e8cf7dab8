package api

import (
	"encoding/json"
	"time"

	"github.com/fnapi/fnapi/decl"
)

// ListAudit answers the newest events of the audit trail. Administrators only.
var ListAudit = decl.Func[ListAuditArgs, []AuditEvent]("list-audit", decl.Since("1.2"),
	decl.Describe("Answers the newest events of the audit trail, newest first: every change of configuration, users, API keys, dashboards and widgets, "+
		"with who made it (user, and key when made with an API key), from where (address), what (action: the function, and details: its arguments, never a password) and when (time). "+
		"At most limit events (default 100, at most 1000), from since on; to page back to the oldest event, call again with before set to the smallest id answered. "+
		"Events are kept for audit_retention (see get-config). Administrators only."))

// ListAuditArgs are the arguments of list-audit; all may be left out.
type ListAuditArgs struct {
	Since  time.Time `json:"since,omitzero" jsonschema:"description=The oldest time to answer events from (RFC 3339); default: every event kept"`
	Limit  int       `json:"limit,omitempty" default:"100" jsonschema:"minimum=1,maximum=1000,description=The most events to answer: the newest"`
	Before int64     `json:"before,omitempty" jsonschema:"minimum=1,description=Answer only events whose id is below this: the smallest id of the previous page; default: from the newest event"`
}

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
