package statedb

import "context"

// BodyBytes is the bytes of the bodies the alert deliveries keep, for the tests.
func BodyBytes(ctx context.Context, a *Alerts) (n int64, err error) {
	err = a.s.ro.QueryRowContext(ctx, `SELECT coalesce(sum(length(body)), 0) FROM alert_deliveries`).Scan(&n)
	return n, err
}
