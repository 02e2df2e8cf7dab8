package pvql

// Result is the answer to one statement. Package api's Result is its form on the wire; the
// query function converts one to the other, sharing each row's keys and values.
type Result struct {
	// Data holds the rows in order; never nil.
	Data []Row
	// Meta describes how the result was computed.
	Meta Meta
}

// Meta describes how a Result was computed.
type Meta struct {
	// AccumulatedTime is the number of seconds of the period the result covers.
	AccumulatedTime int64
	// Elapsed is the number of seconds spent answering.
	Elapsed float64
	// Sorted is true when the rows are ordered by the first value (no time key).
	Sorted bool
	// Groups is, for a statement with TOP, how many groups (time ignored) satisfied it before
	// TOP kept the largest; 0 without TOP, or when no group matched.
	Groups int64
}

// Row is one group of a Result.
type Row struct {
	// Keys holds the group's keys in BY order: addresses as strings (IPv4 dotted), ports and
	// times (Unix seconds) as int64, protocols as names (or int64 when they have none),
	// applications as strings.
	Keys []any
	// Values holds the statement's values in order; NaN stands for null (division by zero).
	Values []float64
}
