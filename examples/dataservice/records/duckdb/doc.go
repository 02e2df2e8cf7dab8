// Package duckdb is the embedded records engine: a DuckDB file, <dir>/records.duckdb, for the
// records of one machine. It registers itself for duckdb:<dir> URLs and plain paths
// (records.Open); Open opens a directory directly.
//
//	s, err := duckdb.Open(ctx, dir)
//	defer s.Close()
//	err = s.Ingest(ctx, recs)             // in the write-ahead log when nil
//	err = s.SetLimits(ctx, memory, threads)
//
// It appends each batch through DuckDB's appender in one transaction, serialises writes, and
// acknowledges a batch once it is in the write-ahead log, so it survives kill -9. Retain
// applies the retention period. The appender takes each value boxed as a driver.Value; a
// records.RowBuilder reuses a column's box while its value repeats the previous row's. What
// bounds ingest, and what was tried, is in BENCHMARKS.md. Only one process may open a file; it
// reports every change of its records (records.ChangeReporter).
//
// Schema versions (migrate.go). The file keeps in records_schema how many of steps it has had,
// each applied once in a transaction that records its number: 1 the records table, 2 the
// collector's columns, 3 the rollups and their marks, 4 the rollups' sums saturated, 5 the
// capture probe's columns, 6 the context's, 7-8 the histograms, 9-10 the rollups' measures and
// histograms (records.Rollup.Measures) summed from the records, 11-13 the context moved to a
// table of its own (context.go: each record holds one number for its context), 14 the rollups
// per 10 minutes and per 6 hours that percentiles read. A file made
// before versioning is at 0, and each step finds what its program left (IF NOT EXISTS; the
// rollups and sums look at their tables), so every earlier file opens. A file of a newer
// version is refused. A new column or rollup is a new step at the end; a column's is
// addColumns with its constant, typed from its descriptor (a column a test build added,
// records.AddColumn, gets such a step after the others: withAdded).
//
// Group commit (group.go): concurrent Ingest calls share transactions. Each call
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
// checkpoints cost ingest most; a crash then replays up to 128 MB of log. IngestBatches
// (queue.Gatherer) joins its batches together, so the queue's consumer puts a fetch's batches
// in one commit, whose cost is about 10 ms whatever its size.
//
// Rollups (rollups.go, rollup_write.go, rollup_mark.go). DuckDB keeps the records summed per bucket
// of time and per value of some keys, in eight tables, each described once (duckRollups: table,
// width, keys): per minute and per hour by protocol, application and server port (and per 10
// minutes and per 6 hours, which only queries of histograms read: records.Rollup.ForHists), per hour and
// per 10 minutes by those and both addresses, and per minute and per hour by the context
// (records.ContextKeys: protocol, zones, ASes and countries; schema step 6). Each keeps the
// capture probe's sums and merged histograms beside bytes, packets and records (steps 9-10), so
// averages and percentiles of the times read it as traffic does. The hourly one with addresses pays because it leaves
// out the client port and the minute; there is no per-minute one with addresses, which would hold
// nearly as many rows as the records (BENCHMARKS.md, "Rollups"). The one per 10 minutes serves the
// edges of a period by address, which the hourly one leaves to the records for up to 70 minutes at
// the newest end and an hour at the oldest. A query whose keys, bucket widths and Where a rollup
// answers reads, at each width, the first rollup that answers it: the whole hours of its period
// from an hourly rollup, the cut minutes at its edges from the per-minute one when it answers, the
// cut seconds from the records. Queries of one Where and one such chain of rollups are one SELECT
// over the union of those branches (records' plan_union.go: one snapshot, one aggregation; with several key
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
// keys once a rollup has grown by half of what its last compaction left (at least 20,000 rows),
// and the step, once nothing is due, compacts whatever the rollups gained since, so that a
// query reads about one row per bucket and keys within a minute of ingest; retention sums the bucket
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
package duckdb
