// Package records holds the traffic records of the example data service, one per conversation
// and time slice as a network monitor collects them: the record model and its parsers, the
// query model a store answers, the SQL planner, and the table of engines that keep them. It
// links no database driver; each engine is a package of its own (records/duckdb,
// records/clickhouse), which a program imports to offer it.
//
// # Use
//
// Open a store by URL; the scheme chooses the engine from the table (Register, EngineOf):
//
//	import _ "github.com/fnapi/fnapi/examples/dataservice/records/duckdb"
//
//	s, engine, err := records.Open(ctx, "duckdb:./data", "")   // or clickhouse://host:9000/db
//	recs, err := records.ParseBatch(raws, time.Now())          // all or nothing
//	err = s.Ingest(ctx, recs)                                  // durable when nil
//	q := &records.Query{Groups: []records.Group{{Column: records.ColApplication}},
//		Sums: []records.Sum{records.SumServerBytes}}
//	err = s.Read(ctx, s.Compile(q), from, to, func(r *records.Row) error { ...; return nil })
//
// A plain path opens DuckDB (DefaultScheme). Each engine registers itself in its init, as
// database/sql drivers do, with what differs between engines (Engine: its name, whether other
// nodes share its stores, whether it has clusters); the data service imports both
// (app/engines.go) and maps its flags to one URL. Errors of a store that cannot be reached are
// marked ErrUnavailable.
//
// # The record
//
// A record arrives as JSON (the ingest function, the demo generator, collectors):
//
//	{"time": 1700000000, "protocol": "tcp", "application": "https",
//	 "client": {"ip": "10.0.0.5", "port": 51234, "bytes": 1200, "packets": 9},
//	 "server": {"ip": "93.184.216.34", "port": 443, "bytes": 48000, "packets": 40}}
//
// ParseRecord checks and normalises one record, ParseBatch a batch of them all or nothing; a bad
// record is a *RecordError naming the field ("client.ip") and the reason, inside a *BatchError
// naming its index. Decisions: time is Unix seconds or RFC 3339 (truncated to the second), at
// least 1970 and at most MaxFuture after the caller's now; protocol is a name ("tcp", "udp",
// "icmp", "icmpv6", ...) or a number 0..255; IPv4-mapped IPv6 addresses are stored and shown
// as IPv4, zones are rejected; application is lower-cased and, when absent, named from the
// server port, or for protocols without ports from the protocol (Application); ports, bytes
// and packets default to 0, counts are at most 2^53-1; unknown fields are rejected, so a
// misspelt field never passes silently as a zero. Three fields are optional, set by the flow
// collectors (package collect) and accepted from ingest: "exporter", the address of the device
// that exported the record; "in_if" and "out_if", the SNMP interface indexes through which the
// client's traffic entered and left it (0: unknown). A capture probe's measures are optional
// too (ingest accepts them): per side "rtt" (average seconds) with "rtt_samples", "retrans"
// and "zero_windows"; for the conversation "ct", "srt" and "dtt" (average seconds), each with
// its "_samples" count, "resets" and "server_name". A Record keeps each time as a Timing, the
// sum of its samples in integer microseconds and their count, and the stores keep those, never
// averages, so that every group averages exactly and every engine alike. A rollup with
// Measures keeps their sums too (RollupMeasures; every rollup of DuckDB and of ClickHouse): a
// Query of them reads it as it reads traffic; without, it reads the records.
//
// Each time also has a histogram of its samples (Timing.Hist, package histogram: fixed
// log-scaled buckets, bucket i > 0 holding (Gamma^(i-1), Gamma^i] microseconds with Gamma =
// 1.02/0.98, bucket 0 everything up to 1 µs, bucket 639 everything above about 33 hours; a
// bucket's value is within 2 % of every value it holds), for percentiles. In JSON it is the
// optional member "<time>_hist" beside the time ("rtt_hist" in a side, "ct_hist", "srt_hist",
// "dtt_hist"): the non-empty buckets as [index, count] pairs by increasing index, whose counts
// add up to the time's samples, e.g. "srt": 0.25, "srt_samples": 3, "srt_hist": [[300, 2],
// [352, 1]]. A time without one came averaged: it counts as its samples in the bucket of its
// average (Timing.Buckets), so percentiles cover every sample, an averaged one at its average;
// records stored before the histograms were kept have theirs so too (the schema migrations).
// The stores keep each histogram as one array column of entries count<<10 | index (hist.go;
// DuckDB UBIGINT[], ClickHouse Array(UInt64)); a Query's Hists read them merged per group
// (Row.Hists): DuckDB gives the group's entries as one list (flatten(list(...))) that the reader
// adds up, ClickHouse adds them up with sumMap. A rollup with Measures keeps each row's
// histograms merged (RollupHists, one entry per bucket), which a Query reads as the records':
// DuckDB's as such a list, ClickHouse's as a Nested column <time>_histMap of indexes and counts
// that its SummingMergeTree adds up when it merges, read through an ALIAS <time>_hist of
// entries (records/clickhouse); DuckDB's HTTP rollups keep each as bytes (Rollup.HistBytes),
// which the reader adds up. A rollup's bucket count saturates at MaxHistCount (2^54-1):
// DuckDB's as it keeps it, ClickHouse's as it reads it (its merges add counts up exactly, in
// Decimal128, and so does its sumMap of the records, so both read the same).
//
// Parsing has two paths with one behaviour. The reference parser decodes a record with
// encoding/json and defines the format (duplicate members: the last wins; member names match
// exactly; integers have no fraction or exponent) and every error. In front of it, a
// single-pass scanner takes records in the common form (strings of printable ASCII without
// escapes, integers without sign, each member once, JSON white space) without allocating but for
// IPv6 addresses, and leaves anything else, every bad record included, to the reference parser;
// FuzzParseFast checks that the two never disagree. ParseBatch stays on one goroutine: a server
// ingesting from several collectors already uses every core (BENCHMARKS.md has the figures).
//
// # Layers
//
// A record is of one Layer (layer.go, the query language's FROM): the transport's, one per
// conversation and time slice, or one HTTP request, DNS query or TLS handshake, with its keys
// (Record.HTTP, DNS, TLS; JSON in layer_json.go). They share the records table: a column
// layer (0 the transport) and one per key (LayerColumns, zero in the others' rows; DuckDB
// leaves them out of a batch of transport records, as it does the probe's measures).
// Decisions: a Query reads the records of its Layer only, so the transport's answers stay
// exact whatever layers arrive; each rollup holds the records of one layer (Rollup.Layer, the
// transport's unless set; DuckDB's writers and background step skip the others, ClickHouse's
// views and repair read layer 0). DuckDB keeps the HTTP layer's by host and status, which a
// day's percentile needs (BENCHMARKS.md, "Layers"); DNS and TLS, and ClickHouse, read the
// records. Retention deletes every layer alike.
//
// # Columns, queries and the planner
//
// The records table keeps addresses as the two 64-bit halves of their 16-byte form (Halves,
// AddrFromHalves), so CIDR filters are range comparisons. Each of its fields is a Column,
// described once (name, Kind, how a Record holds it) in one table that every store reads to
// make its table, its migrations, its inserts, its rollups' rows and its SQL: a new field is
// one row there, and a step of each engine that adds it.
//
// A Store keeps records and answers the query engine as a Reader: the engine describes each
// statement as a Query (groups, sums and a Cond tree, in no dialect), the store compiles the
// Queries of one period once to its own SQL (Compile, a *Plan) and runs it on each part of the
// period (Read). Queries of one Where share one SELECT where the dialect has GROUPING SETS
// (DuckDB): one pass over the records answers them all, each Row naming its Query.
//
// The planner is driver-free and shared (sql.go, plan.go, plan_select.go, plan_union.go,
// plan_bind.go, plan_read.go): an engine supplies a Dialect (types, parameters, sums, casts) and
// its Rollups, each described once (Rollup: table, width, keys), and Compile builds its Plans;
// the engine binds a Plan's time bounds (Plan.Bind, LiteralTimes) and scans its rows (Plan.Scan).
// A query whose keys, bucket widths and Where a rollup answers reads, at each width, the first
// rollup that answers it (Chain), whole buckets from the rollups and the cut edges from the
// records, in one SELECT over the union of those branches. A store that knows no record lies at
// or after a period's end may read the period to the end of its coarsest rollup's bucket instead
// (Plan.OpenEnd: DuckDB does, for every period up to now), and DuckDB is sent no branch whose
// range is empty.
//
// Sums (sum.go). A sum of counts over a group and a period is exact below MaxSum (2^64-1) and
// saturates at it: a record carries at most MaxCount (2^53-1) a side, so 2,049 of them pass a
// 64-bit sum, which no real network does within any retention (1 Tbit/s for 4.6 years). DuckDB
// sums into 128 bits (HUGEINT) and saturates that, where a cast to UBIGINT failed every query
// over the period; ClickHouse, whose sum of UInt64 wraps around silently, sums Decimal128
// (18.16 has no Int128). Rollup rows saturate too: DuckDB keeps them as UBIGINT saturated
// (adding a saturated row to anything saturates again, so a query reads the same from them as
// from the records), ClickHouse as Decimal128, which its SummingMergeTree adds up exactly when it
// merges. Callers adding Rows of one group use AddSum, which saturates the same way
// (TestSumsSaturateDuckDB, TestSumsSaturateClickHouse), or MergeSum, which also takes the
// extremes (Sum.Extreme: the least and greatest tls.not_after, 0 unknown), read from the
// records by min and max on both engines, never from a rollup. A DuckDB file of an earlier version,
// which appended a batch's rollup sums wrapped around, has the hours whose records pass MaxSum
// summed anew once when opened (records/duckdb).
//
// Changes (changes.go): DuckDB reports the span of times of each batch it ingests and of each
// deletion, to each Watcher, once before it writes and once after, so that a reader that takes
// the changes and then reads learns of every write its read may have seen, and of every one it
// may have missed. Followed queries (package pvql, Live) read again only the times that
// changed. A Watcher keeps at most 32 spans, merging the closest past that, so it may report
// more time as changed than was, never less. A store that reports every change of its records
// says so by implementing ChangeReporter; DuckDB does. ClickHouse does not: other processes may
// write it, so a followed query there answers its whole period each interval.
//
// # Adding a query key over a new column
//
// A new field of the records that queries group and filter by (a capture probe's, ...) touches
// these files, and the tests that list every column and key then tell what else is missing:
//
//  1. record.go: the field of Record (or Endpoint), and its check in validate.
//  2. parse.go: its JSON member in the reference parser (and its error).
//  3. parse_fast.go: the same member in the scanner, or the scanner leaves records holding it
//     to the reference parser (FuzzParseFast checks that both agree).
//  4. columns.go: a Column constant before NumColumns (append only) and its row in the
//     columns table (name, Kind, how a Record holds it). Every engine's table, inserts, rollup
//     writers (DuckDB's key slots) and SQL read that table.
//  5. duckdb/migrate.go and clickhouse/schema.go: a step at the end of each engine's steps
//     that adds the column to stores of earlier versions, typed from its descriptor:
//     addColumns(ctx, tx, ColX) in steps, chAddColumns(ctx, c, "records", ColX) in chSteps (and
//     SchemaVersion one more).
//  6. pvql/keys.go: its key descriptor (name, Column, type, text).
//
// A field the service resolves as it stores a record (the context, issue 25: each Endpoint's
// Place, zone, AS number and name, country, and the exporter's and interfaces' names) is not
// parsed: inlet/enrich.go sets it from package netctx instead of 2 and 3. DuckDB step 6 and
// ClickHouse version 5 added those, with two rollups by ContextKeys.
//
// The route covering each side's address (Place.ASPath and Place.Communities, from package
// bgp) is set there too, as list columns (KindUint32s, KindStrings; DuckDB step 17 and
// ClickHouse step 10 added them). Both engines keep them in the records table (DuckDB appends
// them only in a batch that fills them, as the probe's columns) and no rollup keeps them: a
// query by them reads the records. A query groups by a list's text (Column.ListText: the whole
// list), and a Compare or In on one holds when the list has the value (Dialect.Has); the zero
// value stands for the empty list.
//
// TestAddKey (records/addkey) proves the path in a test build: AddColumn and pvql.AddKey add
// a column and a key over it, each engine adds the column to a store of the columns before
// (a step after its own, derived from the descriptor), and queries group and filter by it.
//
// # Adding an engine: three files
//
// An engine is a package records/<name> (as records/duckdb and records/clickhouse are):
//
//  1. <name>.go: a Store (Ingest, DeleteBefore, Compile, Read, Newest, Close) whose Compile
//     calls Compile with the engine's Dialect and Rollups, and an init that calls Register with
//     the URL scheme and the Engine (name, Shared, Clusters, Open).
//  2. schema.go: its numbered, append-only schema steps, the version kept beside the records.
//  3. app/engines.go: one import line, so that the service offers it.
//
// Its tests run the checks every store passes, recordstest.Check, and the sums of
// recordstest.CheckSums.
package records
