// Package records holds the traffic records of the example data service, one per conversation
// and time slice as a network monitor collects them, and the store that keeps them.
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
// client's traffic entered and left it (0: unknown).
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
// The records table keeps addresses as the two 64-bit halves of their 16-byte form (Halves,
// AddrFromHalves), so CIDR filters are range comparisons. Each of its fields is a Column,
// described once (name, Kind, how a Record holds it) in one table that every store reads to
// make its table, its inserts and its SQL: a new field is one row there.
//
// A Store keeps records and answers the query engine as a Reader: the engine describes each
// statement as a Query (groups, sums and a Cond tree, in no dialect), the store compiles the
// Queries of one period once to its own SQL (Compile, a *Plan) and runs it on each part of the
// period (Read). Queries of one Where share one SELECT where the dialect has GROUPING SETS
// (DuckDB): one pass over the records answers them all, each Row naming its Query.
//
// Rollups (rollup.go, rollup_write.go, rollup_mark.go). DuckDB keeps the records summed per bucket
// of time and per value of some keys, in four tables, each described once (duckRollups: table,
// width, keys): per minute and per hour by protocol, application and server port, and per hour and
// per 10 minutes by those and both addresses. The hourly one with addresses pays because it leaves
// out the client port and the minute; there is no per-minute one with addresses, which would hold
// nearly as many rows as the records (BENCHMARKS.md, "Rollups"). The one per 10 minutes serves the
// edges of a period by address, which the hourly one leaves to the records for up to 70 minutes at
// the newest end and an hour at the oldest. A query whose keys, bucket widths and Where a rollup
// answers reads, at each width, the first rollup that answers it: the whole hours of its period
// from an hourly rollup, the cut minutes at its edges from the per-minute one when it answers, the
// cut seconds from the records. Queries of one Where and one such chain of rollups are one SELECT
// over the union of those branches (plan_union.go: one snapshot, one aggregation; with several key
// sets the records at the edges are first summed by every key of the sets, so the sets share that
// work), and the SELECTs of a Read run side by side (up to four). DuckDB's SQL holds each branch's
// time bounds as literals (integers the plan computed, never a caller's text; everything else is a
// parameter): it skips a table's row groups by time only for literal bounds. Ingest adds each
// group commit's sums to the rollups without addresses in the transaction that appends its records
// (so a reader sees a batch everywhere or nowhere, late records in old buckets included). The
// rollups with addresses are kept in the background (rollup_mark.go), since they gain nearly a
// row per record where every record has a new address. A rollup's mark, the time
// through which it is rolled up, is stored in the table rollup_marks; the rollup holds exactly the
// records before it. A step, every minute (and on CatchUp), sums the first bucket at or after the
// mark that holds records and ended ten minutes (rollupSlack) before both the newest record and
// the wall clock, and the due buckets after it up to an hour from its start, from the records into
// the rollup and advances the mark, in one transaction, holding the write token as ingest does (so
// no ingest transaction is in flight, with records its snapshot would miss); it gives the token
// back between transactions and logs its errors, retrying a minute later (the records are stored:
// the rollup only lags). Ingest adds to it only records before the mark, in its transaction (late
// records, normally none); a query reads it only before the mark, the rest from the finer levels
// and the records as for a cut bucket, with the mark read before its SELECT (a committed mark
// stays exact in every later snapshot). Close stops the step without catching up; the next open
// resumes from the stored mark. A compaction merges the rows that batches wrote for one bucket and
// keys once a rollup has grown by half of what its last compaction left, retention sums the bucket
// it cuts anew from the records when that bucket is before the mark, and a file of an earlier
// version gains the rollups it lacks when opened (a background one empty at mark 0, filled by the
// step an hour a transaction; one an earlier version kept in every transaction is complete, and
// its mark is the end of its newest bucket). A coarser level is read only before the marks of the
// finer ones, and a read skips a rollup whose mark is behind a coarser one's (readLevels): until
// the rollup per 10 minutes, new in a file of an earlier version, has caught up (an hour of
// records a step, in the background), statements by address read as they did before it existed.
// The answers are those of the records (TestRollupsAnswerAsRecords here and in package pvql, with
// the mark behind, mid-way and caught up); a group may come in several rows, which the caller adds
// up.
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
// (TestSumsSaturateDuckDB, TestSumsSaturateClickHouse). A DuckDB file of an earlier version,
// which appended a batch's rollup sums wrapped around, has the hours whose records pass MaxSum
// summed anew once when opened (rollup_resum.go: one pass over the records).
//
// The SQL is built in one place (sql.go); a store supplies a dialect (types, parameters,
// casts) and its rollups, so a new engine is one file. No store hands out its database. DuckDB
// is the embedded one, in <dir>/records.duckdb. It appends each batch through DuckDB's appender
// in one transaction, serialises writes, and acknowledges a batch once it is in the write-ahead
// log, so it survives kill -9. Retain applies the retention period. The appender takes each
// value boxed as a driver.Value; a rowBuilder (columns.go) reuses a column's box while its value
// repeats the previous row's. What bounds ingest, and what was tried, is in BENCHMARKS.md.
//
// Group commit (group.go): concurrent Ingest calls to DuckDB share transactions. Each call
// validates its batch alone first, so a bad record fails its own call and no other; it then
// queues, and the call that next holds the write token commits every batch waiting (its own first,
// then the queue in order, up to 200,000 records) in one transaction, records and rollup sums
// together (the background rollup's step takes the same token between groups), and hands every
// member the result. So each call still stores all of its batch or none, and a nil error still
// means its records are in the write-ahead log; but when a group's commit fails (a full disk,
// say), every call in that group gets the error and nothing of the group is stored, batches of
// other clients included: each may simply retry. A call whose context ends while it waits leaves
// the queue with the context's error and nothing stored; once a leader took its batch, the call
// waits for that commit's result instead (the commit does not stop for one member's deadline). The
// log is checkpointed into the file every 128 MB of log rather than DuckDB's 16 MB, since
// checkpoints cost ingest most; a crash then replays up to 128 MB of log.
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
// ClickHouse (OpenClickHouse) is the store for records beyond one machine, on one server or a
// sharded cluster (a MergeTree table on each shard and a Distributed table over them). Its
// schema carries a version (ClickHouseSchemaVersion) and is refused, never altered, when an
// existing records table differs. It keeps DuckDB's rollups (clickhouse_rollup.go: each a
// SummingMergeTree fed by a materialized view on each shard), read through the same union of
// branches; as the views write after the records rather than with them, days where a rollup
// and the records differ are summed again from the records at open and after a failed write,
// and reads use the records alone until they are (clickhouse_repair.go). Each batch is
// validated, then sent as one block in one INSERT
// (synchronous through a Distributed table): a batch within one day is stored whole or not at
// all, even when the server is killed mid-insert. Retention drops whole day partitions. A
// server that cannot be reached gives errors marked ErrUnavailable, within the dial and read
// timeouts; the store reconnects by itself. The data service's README ("Records in
// ClickHouse") states what an acknowledged batch means there and which versions were tested.
package records
