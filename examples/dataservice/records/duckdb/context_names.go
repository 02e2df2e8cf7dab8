package duckdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// maxNamedContexts bounds the contexts a store keeps named for its reads (contextNames): about
// 600 bytes each, 40 MB at most. Past it, it forgets them all and reads each again as needed.
const maxNamedContexts = 1 << 16

// contextNames are the values of the contexts that reads named (records.ContextNames): a read
// whose keys use the context names the records at its period's edges by their context number
// here (records.Dialect.ContextNumber) rather than join them to the contexts table. A number
// always means the same values (contextValues.id), so an entry is never stale, even after
// retention deleted its context. Ingest adds the contexts it stores (learn); a context stored
// before the store opened, or forgotten, is read from the table once.
type contextNames struct {
	mu   sync.RWMutex
	byID map[uint64]*records.ContextValues
}

// learn keeps the values of the contexts of fresh, which ingest has just stored, so that the
// reads naming their records at the edges of a period find them without reading the table.
func (n *contextNames) learn(fresh map[uint64]*contextValues) {
	if len(fresh) == 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for id, vs := range fresh {
		n.put(id, (*records.ContextValues)(vs))
	}
}

// put keeps the values of context id, forgetting every other first when the map is full;
// n.mu is held.
func (n *contextNames) put(id uint64, vs *records.ContextValues) {
	if n.byID == nil || len(n.byID) >= maxNamedContexts {
		n.byID = map[uint64]*records.ContextValues{}
	}
	n.byID[id] = vs
}

// contextsByID reads one context by its number.
var contextsByID = func() string {
	names := make([]string, len(contextColumns))
	for i, c := range contextColumns {
		names[i] = c.Name()
	}
	return "SELECT " + strings.Join(names, ", ") + " FROM " + contextsTable + " WHERE id = CAST(? AS UBIGINT)"
}()

// names returns the records.ContextNames of a read of db: from memory, or else from the
// contexts table.
func (n *contextNames) names(ctx context.Context, db *sql.DB) records.ContextNames {
	return func(id uint64) (*records.ContextValues, error) {
		n.mu.RLock()
		vs, ok := n.byID[id]
		n.mu.RUnlock()
		if ok {
			return vs, nil
		}
		vs, err := readContext(ctx, db, id)
		if err != nil {
			return nil, err
		}
		n.mu.Lock()
		defer n.mu.Unlock()
		n.put(id, vs)
		return vs, nil
	}
}

// readContext reads the values of context id from the contexts table.
func readContext(ctx context.Context, db *sql.DB, id uint64) (*records.ContextValues, error) {
	var (
		strs [records.NumContextColumns]string
		nums [records.NumContextColumns]uint64
		dest = make([]any, len(contextColumns))
	)
	for i, c := range contextColumns {
		if c.Kind() == records.KindString {
			dest[i] = &strs[i]
		} else {
			dest[i] = &nums[i]
		}
	}
	// database/sql passes no uint64 above math.MaxInt64: the number goes as text.
	err := db.QueryRowContext(ctx, contextsByID, strconv.FormatUint(id, 10)).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		// Retention deleted it while a read over its oldest records ran: a new read will not see them.
		return nil, fmt.Errorf("no context %d in table %s (deleted by retention during the read): read again", id, contextsTable)
	}
	if err != nil {
		return nil, err
	}
	var vs records.ContextValues
	for i, c := range contextColumns {
		if c.Kind() == records.KindString {
			vs[i].Str = strs[i]
		} else {
			vs[i].Lo = nums[i]
		}
	}
	return &vs, nil
}
