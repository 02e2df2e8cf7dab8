package clickhouse

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/records"

	"github.com/ClickHouse/clickhouse-go/v2"
	chdriver "github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// ClickHouse timeouts: how long a store waits to connect, and for each read of an answer
// (the server reports progress while it works, so a long query does not hit it).
const (
	DialTimeout = 5 * time.Second
	ReadTimeout = 60 * time.Second
)

// Store is the records.Store in a ClickHouse server, or in a cluster of them: a MergeTree table
// "records" (with a Distributed table "records_dist" over the shards' tables when clustered),
// partitioned by day, and its rollups (rollup.go). It is safe for
// concurrent use. Each Ingest is one INSERT of one block;
// see the package doc for what an acknowledged batch means.
type Store struct {
	conn    chdriver.Conn
	table   string           // the table read and written
	rollups []records.Rollup // the rollups read: chRollups, or their Distributed tables
	shards  []chdriver.Conn  // the servers holding a local table (conn alone without a cluster)
	owned   []chdriver.Conn  // connections to close, conn included
	rollup  chRollupState
	batches batches // batchesTable's creation (batches.go)
	// logError reports a failed repair of the rollup (WithErrorLog).
	logError func(msg string, err error)
}

var _ records.Store = (*Store)(nil)

// init registers ClickHouse as the engine of clickhouse:// URLs: shared (other nodes may write
// the records), with clusters.
func init() {
	records.Register("clickhouse", records.Engine{Name: "clickhouse", Shared: true, Clusters: true,
		Open: func(ctx context.Context, url, cluster string, opts ...records.Option) (records.Store, error) {
			return Open(ctx, url, cluster, opts...)
		}})
}

// chHist merges a group's histogram entries (records/hist.go) in ClickHouse: the counts of
// each bucket index added up (chSumMap), then entries again, saturated (chEntries). Its
// branches' entries are saturated already, so a group reads the same from the rollups as from
// the records.
func chHist(col string) string { return chMerged(chSumMap(col)) }

// chHistBranch gives histogram column col in a union's branch as two arrays, col_index and
// col_count, the bucket indexes and their counts as Decimal128: a rollup's as its map keeps
// them (chHistMap), the records' taken out of their entries (chSplit). chHistUnion adds them
// up by index over the branches and makes entries, saturated, as chHist does over one table.
// Reading a rollup's histogram as entries (its ALIAS), to take them apart again in the sum,
// made a percentile 2.5 times as slow.
func chHistBranch(col string, r *records.Rollup, _ bool) string {
	indexes, counts := "`"+chHistMap(col)+".index`", "`"+chHistMap(col)+".count`"
	if r == nil {
		indexes, counts = chSplit(col)
	}
	return indexes + " AS " + col + "_index, " + counts + " AS " + col + "_count"
}

func chHistUnion(col string) string {
	return chMerged("sumMap(" + col + "_index, " + col + "_count)")
}

// chSumMap adds up the counts of each bucket index of a group's histogram entries col: a
// tuple of the indexes (Array(UInt16), increasing) and their counts (Array(Decimal(38, 0)),
// exact, where sumMap of UInt64 wraps around).
func chSumMap(col string) string {
	indexes, counts := chSplit(col)
	return "sumMap(" + indexes + ", " + counts + ")"
}

// chSplit takes histogram entries col apart: the arrays of their bucket indexes (UInt16) and
// of their counts (Decimal128).
func chSplit(col string) (indexes, counts string) {
	mask, shift := strconv.Itoa(records.HistIndexMask), strconv.Itoa(records.HistShift)
	return "arrayMap(e -> toUInt16(bitAnd(e, " + mask + ")), " + col + ")",
		"arrayMap(e -> toDecimal128(bitShiftRight(e, " + shift + "), 0), " + col + ")"
}

// chMerged makes entries of the tuple of indexes and counts that sumMap m gives.
func chMerged(m string) string {
	return chEntries("tupleElement("+m+", 1)", "tupleElement("+m+", 2)")
}

// chEntries makes histogram entries of the arrays of bucket indexes and counts, each count
// saturated at records.MaxHistCount.
func chEntries(indexes, counts string) string {
	maxCount := "toDecimal128('" + strconv.FormatUint(records.MaxHistCount, 10) + "', 0)"
	return "arrayMap((i, n) -> bitOr(bitShiftLeft(toUInt64(least(n, " + maxCount + ")), " + strconv.Itoa(records.HistShift) + "), toUInt64(i)), " + indexes + ", " + counts + ")"
}

// chDialect is ClickHouse's SQL: the driver formats each argument into the query, so
// parameters are plain "?"; sums and buckets are cast so they scan as UInt64 and Int64 on every
// version. ClickHouse sums UInt64 into a UInt64 that wraps around, so sums are of Decimal128
// (38 digits, exact for any number of records; 18.16 has no Int128), saturated at MaxSum, and
// the rollups keep theirs as Decimal128 too.
var chDialect = &records.Dialect{
	Types: [...]string{records.KindInt64: "Int64", records.KindUint8: "UInt8", records.KindUint16: "UInt16",
		records.KindUint32: "UInt32", records.KindUint64: "UInt64", records.KindString: "String",
		records.KindHist: "Array(UInt64)", records.KindUint32s: "Array(UInt32)", records.KindStrings: "Array(String)"},
	Param: func(b *records.SQLBuilder, v any, _ records.Kind) {
		b.WriteString("?")
		b.Args = append(b.Args, v)
	},
	Sum: func(col string) string {
		return "toUInt64(least(sum(toDecimal128(" + col + ", 0)), toDecimal128('" + records.MaxSumSQL + "', 0)))"
	},
	Count:    "toUInt64(count())",
	CountSum: func(col string) string { return "toUInt64(sum(" + col + "))" },
	Partial:  func(col string) string { return "sum(toDecimal128(" + col + ", 0))" },
	Widen:    func(col string) string { return "toDecimal128(" + col + ", 0)" },
	// minIf of a group without a matching row is 0, the type's default, on 18.16 as now.
	Extreme: func(col string, max bool) string {
		if max {
			return "toUInt64(max(" + col + "))"
		}
		return "toUInt64(minIf(" + col + ", " + col + " > 0))"
	},
	Hist:       chHist,
	HistBranch: chHistBranch,
	HistUnion:  chHistUnion,
	SumType:    "Decimal(38, 0)",
	BytesType:  "String",
	Bucket:     func(expr string) string { return "toInt64(" + expr + ")" },
	Has:        func(col, param string) string { return "has(" + col + ", " + param + ")" },
	ListText: func(col string, k records.Kind) string {
		if k == records.KindUint32s {
			col = "arrayMap(x -> toString(x), " + col + ")"
		}
		return "arrayStringConcat(" + col + ", '" + records.ListSep + "')"
	},
}

// Open connects to the ClickHouse server of url
// (clickhouse://[user[:password]@]host:port/database, native protocol) and creates the records
// table when it is missing; a table of another shape is an error, never altered. With a
// cluster name (one of the server's remote_servers), it creates the table on every shard,
// connecting to each (ON CLUSTER would need ZooKeeper), and a Distributed table over them on
// this server, through which it reads and writes.
func Open(ctx context.Context, url, cluster string, options ...records.Option) (*Store, error) {
	opts, err := chOptions(url)
	if err != nil {
		return nil, err
	}
	s := &Store{table: "records", rollups: chRollups, rollup: chRollupState{pending: map[int64]bool{}, all: true}, logError: records.OptionsOf(options).LogError}
	if s.conn, err = chOpen(ctx, opts); err != nil {
		return nil, err
	}
	s.owned = []chdriver.Conn{s.conn}
	s.shards = []chdriver.Conn{s.conn}
	if err := s.ensureSchema(ctx, opts, cluster); err != nil {
		s.Close()
		return nil, err
	}
	// The rollup of every day is compared with the records now (made from them after an
	// upgrade from schema version 1); should that fail, reads use the records alone until a
	// later repair succeeds.
	s.trusted(ctx, true)
	return s, nil
}

// ensureSchema creates or checks the tables on every shard, and in a cluster the Distributed
// tables on this server: the schema versions a shard lacks (chSteps), then the Distributed
// tables, made or checked at every open (they hold no data).
func (s *Store) ensureSchema(ctx context.Context, opts *clickhouse.Options, cluster string) error {
	if cluster != "" {
		if err := s.openShards(ctx, opts, cluster); err != nil {
			return err
		}
		s.table, s.rollups = "records_dist", nil
		for i := range chRollups {
			r := chRollups[i]
			r.Table = chDist(&chRollups[i])
			s.rollups = append(s.rollups, r)
		}
	}
	for _, c := range s.shards {
		if err := migrate(ctx, c); err != nil {
			return err
		}
	}
	if cluster == "" {
		return nil
	}
	if err := checkVersion(ctx, s.conn); err != nil {
		return err
	}
	engine := "Distributed(" + quoteIdent(cluster) + ", " + quoteIdent(opts.Auth.Database) + ", records, rand())"
	if err := addColumns(ctx, s.conn, "records_dist", records.ColumnCount()); err != nil { // of an earlier version
		return err
	}
	if err := ensureTable(ctx, s.conn, "records_dist", engine); err != nil {
		return err
	}
	for i := range chRollups {
		if err := chEnsureRollupDist(ctx, s.conn, cluster, opts.Auth.Database, &chRollups[i]); err != nil {
			return err
		}
	}
	return writeVersion(ctx, s.conn, version())
}

// chOptions parses url into driver options with the store's timeouts.
func chOptions(url string) (*clickhouse.Options, error) {
	if !strings.HasPrefix(url, "clickhouse://") {
		return nil, errors.New("records: a ClickHouse URL is clickhouse://[user[:password]@]host:port/database (the native protocol)")
	}
	opts, err := clickhouse.ParseDSN(url)
	if err != nil {
		return nil, fmt.Errorf("records: clickhouse URL: %w", err)
	}
	if opts.Auth.Database == "" {
		opts.Auth.Database = "default"
	}
	opts.DialTimeout = DialTimeout
	opts.ReadTimeout = ReadTimeout
	return opts, nil
}

func chOpen(ctx context.Context, opts *clickhouse.Options) (chdriver.Conn, error) {
	c, err := clickhouse.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("records: clickhouse %v: %w", opts.Addr, err)
	}
	if err := c.Ping(ctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("records: clickhouse %v: %w", opts.Addr, unavailable(err))
	}
	return c, nil
}

// openShards connects to the first replica of every shard of cluster, as system.clusters lists
// them, with the credentials and database of opts.
func (s *Store) openShards(ctx context.Context, opts *clickhouse.Options, cluster string) error {
	rows, err := s.conn.Query(ctx, "SELECT shard_num, host_address, toUInt16(port) FROM system.clusters WHERE cluster = ? AND replica_num = 1 ORDER BY shard_num", cluster)
	if err != nil {
		return fmt.Errorf("records: clickhouse cluster %s: %w", cluster, unavailable(err))
	}
	defer rows.Close()
	s.shards = nil
	for rows.Next() {
		var shard uint32
		var host string
		var port uint16
		if err := rows.Scan(&shard, &host, &port); err != nil {
			return fmt.Errorf("records: clickhouse cluster %s: %w", cluster, err)
		}
		o := *opts
		o.Addr = []string{fmt.Sprintf("%s:%d", bracketIPv6(host), port)}
		c, err := chOpen(ctx, &o)
		if err != nil {
			return fmt.Errorf("records: shard %d of cluster %s: %w", shard, cluster, err)
		}
		s.owned = append(s.owned, c)
		s.shards = append(s.shards, c)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("records: clickhouse cluster %s: %w", cluster, err)
	}
	if len(s.shards) == 0 {
		return fmt.Errorf("records: clickhouse has no cluster %q in its remote_servers", cluster)
	}
	return nil
}

func bracketIPv6(host string) string {
	for i := range len(host) {
		if host[i] == ':' {
			return "[" + host + "]"
		}
	}
	return host
}

// quoteIdent quotes a ClickHouse identifier.
func quoteIdent(s string) string {
	out := []byte{'`'}
	for i := range len(s) {
		if s[i] == '`' || s[i] == '\\' {
			out = append(out, '\\')
		}
		out = append(out, s[i])
	}
	return string(append(out, '`'))
}

// Ingest validates recs (a bad record is a *BatchError and nothing is sent) and inserts them
// as one block in one INSERT; through a Distributed table the insert is synchronous
// (insert_distributed_sync), so it returns once every shard has written its part.
func (s *Store) Ingest(ctx context.Context, recs []records.Record) error {
	if len(recs) == 0 {
		return nil
	}
	if err := records.ValidateBatch(recs, time.Now()); err != nil {
		return err
	}
	return s.ingest(ctx, recs)
}

// ingest inserts the records of parts, validated, as one block in one INSERT.
func (s *Store) ingest(ctx context.Context, parts ...[]records.Record) error {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	s.trusted(ctx, false)
	s.rollup.writing.RLock()
	defer s.rollup.writing.RUnlock()
	if err := s.insert(ctx, n, parts); err != nil {
		// Some of the batch's records may be stored without their rollup rows.
		var days []int64
		for _, p := range parts {
			days = append(days, recordDays(p)...)
		}
		s.rollup.suspect(days, false)
		return fmt.Errorf("records: ingest %d records: %w", n, unavailable(err))
	}
	return nil
}

// insert sends the n records of parts as one block, built column by column.
func (s *Store) insert(ctx context.Context, n int, parts [][]records.Record) error {
	ctx = clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"insert_distributed_sync": 1}))
	names, kinds := records.SQLColumns()
	b, err := s.conn.PrepareBatch(ctx, "INSERT INTO "+s.table+" ("+joinNames(names)+")")
	if err != nil {
		return err
	}
	defer b.Close()
	cols := newColumns(kinds, n)
	var rb records.RowBuilder
	row := make([]driver.Value, 0, len(names))
	for _, recs := range parts {
		for i := range recs {
			row = rb.AppendRow(row[:0], &recs[i])
			for j, v := range row {
				cols[j].add(v)
			}
		}
	}
	for i, c := range cols {
		if err := b.Column(i).Append(c.slice()); err != nil {
			return err
		}
	}
	return b.Send()
}

// Compile turns qs into ClickHouse's SQL over the table read (the Distributed one in a
// cluster): one SELECT for each key set, as the oldest server supported (18.16) has no
// GROUPING SETS, each over the records and the rollups that answer it (compile's union).
func (s *Store) Compile(qs ...*records.Query) *records.Plan {
	return records.Compile(chDialect, s.table, s.rollups, qs)
}

// Read runs p over the records with from <= time < to, calling fn with each group: each part
// in one statement, the whole buckets of its period from the rollups and its cut edges from
// the records while the rollups are known to match them, the records alone otherwise.
func (s *Store) Read(ctx context.Context, p *records.Plan, from, to int64, fn func(*records.Row) error) error {
	rollups := s.trusted(ctx, false)
	return p.Each(func(p *records.Plan) error { return s.read(ctx, p, from, to, rollups, fn) })
}

func (s *Store) read(ctx context.Context, p *records.Plan, from, to int64, rollups bool, fn func(*records.Row) error) error {
	args := p.BindRecords(from, to)
	if rollups {
		// The views keep every rollup current: no marks.
		var err error
		if args, err = p.Bind(from, to, nil); err != nil {
			return err
		}
	}
	if s.table != "records" {
		// Through a Distributed table 18.16 loses the columns of a WHERE moved to PREWHERE
		// when a branch selects constants only ("Not found column greaterOrEquals(time, ...)").
		ctx = clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"optimize_move_to_prewhere": 0}))
	}
	rows, err := s.conn.Query(ctx, p.SQL(), args...)
	if err != nil {
		return fmt.Errorf("records: read: %w", unavailable(err))
	}
	defer rows.Close()
	dests := make([]any, 0, p.Width())
	for _, k := range p.KeyKinds() {
		dests = append(dests, newDest(k))
	}
	for range p.NumSums() {
		dests = append(dests, new(uint64))
	}
	for range p.NumHists() {
		dests = append(dests, new([]uint64))
	}
	return unavailable(p.Scan(rows, dests, dests, nil, fn))
}

// Newest returns the time of the newest record; ok is false when there is none.
func (s *Store) Newest(ctx context.Context) (int64, bool, error) {
	var t int64
	var n uint64
	if err := s.conn.QueryRow(ctx, "SELECT toInt64(max(time)), toUInt64(count()) FROM "+s.table).Scan(&t, &n); err != nil {
		return 0, false, fmt.Errorf("records: newest: %w", unavailable(err))
	}
	return t, n > 0, nil
}

// Close closes the connections.
func (s *Store) Close() error {
	var errs []error
	for _, c := range s.owned {
		errs = append(errs, c.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("records: close: %w", err)
	}
	return nil
}
