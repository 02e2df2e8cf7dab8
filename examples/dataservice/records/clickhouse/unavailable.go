package clickhouse

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/fnapi/fnapi/examples/dataservice/records"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// unavailable marks err with ErrUnavailable when it is a failure to reach the server, not an
// answer of it (an exception) nor the caller's cancellation.
func unavailable(err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	var ex *clickhouse.Exception
	if errors.As(err, &ex) {
		// A Distributed table's server answers for a shard it could not reach.
		switch ex.Code {
		case 209, 210, 279: // SOCKET_TIMEOUT, NETWORK_ERROR, ALL_CONNECTION_TRIES_FAILED
			return fmt.Errorf("%w: %w", records.ErrUnavailable, err)
		}
		return err
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, clickhouse.ErrAcquireConnTimeout) || errors.Is(err, driver.ErrBadConn) {
		return fmt.Errorf("%w: %w", records.ErrUnavailable, err)
	}
	return err
}
