package records

import (
	"fmt"
	"strings"
)

// RecordError says which field of a record is wrong and why.
type RecordError struct {
	// Field is the path of the field: "time", "client.ip", "server.bytes", or "" for the
	// record as a whole.
	Field string
	// Reason says what is wrong, for a person to read.
	Reason string
}

// Error returns "records: FIELD: REASON".
func (e *RecordError) Error() string {
	if e.Field == "" {
		return "records: " + e.Reason
	}
	return "records: " + e.Field + ": " + e.Reason
}

// BatchError is the error of ParseBatch: the record at Index (0-based) is wrong.
type BatchError struct {
	// Index is the position of the first bad record in the batch.
	Index int
	// Err is what is wrong with it, a *RecordError.
	Err error
}

// Error returns "records: record INDEX: FIELD: REASON".
func (e *BatchError) Error() string {
	return fmt.Sprintf("records: record %d: %s", e.Index, strings.TrimPrefix(e.Err.Error(), "records: "))
}

// Unwrap returns the record's error.
func (e *BatchError) Unwrap() error { return e.Err }
