// Package clickhouse is the records engine for records beyond one machine: a ClickHouse server
// or a sharded cluster (a MergeTree table on each shard and a Distributed table over them). It
// registers itself for clickhouse:// URLs (records.Open), as shared (other nodes may write the
// records) and with clusters; Open opens one directly.
//
//	s, err := clickhouse.Open(ctx, "clickhouse://user:pw@host:9000/db", "")  // or a cluster name
//
// Schema versions (schema.go). The tables' version is kept in records_version on each shard: the
// number of chSteps applied, 1 the records table, 2 the per-minute rollup, 3 the rollups' sums as
// Decimal128, 4 the capture probe's columns, 5 the context's columns and rollups, 6 the times'
// histograms, 7 the capture probe's measures and histograms in every rollup, 8 the rollups' index
// a mark every 1,024 rows, their rows copied over, 9 the layers' columns (the rollups' views then
// summing the transport's records alone), 10 the routes' columns, 11 the HTTP layer's rollups, 12
// its rollup per 10 minutes (SchemaVersion). ClickHouse has no transactions over tables, so each
// step may run again after a failure midway, and its number is written once it succeeded. Every
// open still checks the records table's shape, refused and never altered when it differs, and the
// rollups', made anew when they differ (they hold nothing the records do not), since other nodes
// share the database. A later version is refused. A new column is a step calling chAddColumns
// with its constant, typed from its descriptor (a column a test build added, records.AddColumn,
// is a version after SchemaVersion: version, addedStep).
//
// It keeps DuckDB's rollups but the one per 10 minutes with addresses, and of the HTTP layer's
// those per minute, 10 minutes, hour and 6 hours, each view summing the records of its layer
// (rollup.go: each a SummingMergeTree fed by a materialized view on each shard), with the capture
// probe's measures and histograms (Measures: each histogram a Nested map <time>_histMap the
// merges add up by bucket index, read as entries through the ALIAS <time>_hist), read through the
// planner's union of branches; as the views write after the records rather than with them, days
// where a rollup and the records differ are summed again from the records at open and after a
// failed write, and reads use the records alone until they are (repair.go). Each batch is
// validated, then sent as one block in one INSERT (IngestBatches: several batches in one,
// ClickHouse's cost being mostly by insert) (synchronous through a Distributed table): a batch
// within one day is stored whole or not at all, even when the server is killed mid-insert.
// Retention drops whole day partitions. A server that cannot be reached gives errors marked
// records.ErrUnavailable, within DialTimeout and ReadTimeout; the store reconnects by itself. It
// does not report its changes (other processes may write it), so a followed query there answers
// its whole period each interval. The data service's docs/storage.md ("Records in ClickHouse")
// states what an acknowledged batch means there and which versions were tested.
package clickhouse
