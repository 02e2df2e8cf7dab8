package state

import "github.com/fnapi/fnapi/examples/dataservice/api"

// AuditEvent is one change recorded in the audit trail; see api.AuditEvent.
type AuditEvent = api.AuditEvent
