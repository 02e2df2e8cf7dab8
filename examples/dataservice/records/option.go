package records

import "log/slog"

// Option configures a store when it is opened.
type Option func(*Options)

// Options are a store's options, which an engine reads with OptionsOf.
type Options struct {
	// LogError reports the failures of background work (WithErrorLog).
	LogError func(msg string, err error)
}

// WithErrorLog sends the failures of a store's background work, which no call sees, to
// logError: DuckDB's background rollup step (retried every minute) and ClickHouse's rollup
// repair (retried by a read at most every chRetryEvery, 5 s, reads using the records alone
// meanwhile).
// Neither loses records; the message says what was failing. Default: the standard library's
// default slog logger.
func WithErrorLog(logError func(msg string, err error)) Option {
	return func(o *Options) { o.LogError = logError }
}

// OptionsOf applies opts over the defaults.
func OptionsOf(opts []Option) Options {
	o := Options{LogError: func(msg string, err error) { slog.Error(msg, "err", err) }}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}
