package duckdb

import (
	"slices"
	"strconv"
	"strings"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// duckRollups are DuckDB's rollups, the keys dashboards group and filter by most. Widths nest:
// each divides every larger one. At each width a query reads the first rollup there that
// answers it, so the smaller (fewer keys) comes first.
//
// The hourly one with both addresses pays because its keys leave out the client port and the
// minute: on the demo network it holds 1/450 of the rows of 10M records over 24 hours and 1/22
// over 30 days (a per-minute one with addresses would hold 1/12 and 1/2, so none is kept).
//
// That one is kept in the background: summed in each ingest it gained nearly a row per record
// (every new client address) and halved ingest. The two without addresses gain a few rows per
// batch and stay in the transaction (measured: BENCHMARKS.md, issue 13), so a query by
// application reads them up to the newest record.
//
// The one per 10 minutes with addresses (1/82 of the rows of 10M records over 24 hours) is there
// for the edges of a period by address: without it, the cut hour at each end, up to 70 minutes
// of records at the newest end (the hourly one is rolled 10 minutes after its hour ends), was
// read from the records, most of such a statement's cost; with it, 10 to 20 minutes at the
// newest end and under 10 at the oldest. It is kept in the background too, and by DuckDB only:
// ClickHouse's views keep its rollups on every insert, where one this fine would cost about
// what the records do.
//
// Every one keeps the capture probe's measures and histograms (Measures; schema steps 9 and
// 10), so that averages and percentiles of the times read them as traffic does.
//
// The ones per 10 minutes and per 6 hours without addresses (schema step 14) are there for
// the percentiles: a percentile reads every entry of the histograms of its rows, and a
// minute's histogram holds nearly as many as an hour's (85 and 104 a row by application, 10M
// capture records a day). Without them a day's p95 BY application read 125,000 entries, two
// thirds from the cut minutes at either end (up to 59 each), most of the rest from 23 hourly
// rows a key; with them, up to 5 rows of 10 minutes and 9 minutes at each end, and 3 rows of 6
// hours and up to 11 hours between (BENCHMARKS.md, "Percentiles within 1.5x of traffic"). Both
// are summed from the per-minute rows in each ingest's transaction, a few rows a batch.
var duckRollups = measured([]records.Rollup{
	{Table: "records_minute", Width: 60, Keys: minuteKeys},
	{Table: "records_hour", Width: 3600, Keys: minuteKeys},
	{Table: "records_hour_hosts", Width: 3600, Keys: hostKeys, Background: true},
	tenMinutes,
	{Table: "records_10min_hosts", Width: 600, Keys: hostKeys, Background: true},
	sixHours,
	contextRollups[0], contextRollups[1],
})

// storeRollups are the rollups a store keeps and reads: the transport's (duckRollups, which
// the schema steps before 16 made) and the HTTP layer's.
var storeRollups = append(slices.Clone(duckRollups), httpRollups...)

// httpRollups are the HTTP layer's rollups (schema step 16), by host and status, per minute
// and hour, and for the percentiles per 10 minutes and 6 hours (as tenMinutes and sixHours),
// kept in each ingest's transaction: without them a day's p95(srt) BY http.host FROM http read
// every request's histogram, 25 times what records BY http.host took (BENCHMARKS.md,
// "Layers"). A few rows a batch: the hosts and statuses of a minute.
//
// Even so that percentile took 3 to 6 times the count (1M to 10M requests a day from 200
// hosts; the issue asks 1.6, BENCHMARKS.md): it reads each host's histogram from about 25 rows
// (3 of 6 hours, 5 hours, 10 of 10 minutes, the cut minutes), some 1,600 entries a host at
// 10M, and each entry as a list cost DuckDB's list aggregate about 12 ns and the driver, which
// boxes each into an any, 23 ns. So they keep their histograms as bytes (HistBytes, schema
// step 18): one value a row for the driver, merged by the reader; in SQL (compaction,
// retention, schema steps) read and written through their hex digits (histEntriesSQL,
// histBytesSQL). At 10M, 4x the count where it was 5x. The rest, measured in one session at
// 10M (load 3.3): the count 2.1 ms, the p95's query 11.2 ms, 4.3 ms of it without the rollups'
// bytes (the cut edges' entries included). DuckDB read the 4,400 rows' 2.6 MB in 4.9 ms,
// mostly decoding FSST: 1.7 ms from a column USING COMPRESSION uncompressed (the benchmark's
// ratio 3.8-4.0x to 3.1-3.3x, the file 17 % larger). Read ungrouped through DuckDB's Arrow
// interface (duckdb-go's build tag duckdb_arrow) and merged from its buffers, the rows took
// 8.7 ms (5.7 uncompressed), 11 ms through database/sql: neither reaches 1.6x.
//
// An entry took 8 bytes then; schema step 19 narrowed each to the fewest bytes that hold its
// histogram's largest (records.AppendHistBytes), 2 or 3 here: the rollups' histograms of 10M
// requests went from 83 MB to 22 MB, those a day's p95 reads from 2.6 MB to 0.86 MB (DuckDB
// keeps them uncompressed, where it decoded FSST), and with the reader's merge in one pass the
// benchmark's ratio from 3.2-3.7x to 2.5-2.8x (8 alternating runs each, load 0.1-1.8). What
// is left, measured on the query alone at 10M: planning its 9 branches 1.1 ms (the count's 5,
// 0.6), running it without histograms 2.7 (the count 1.9), the cut edges' entries 1 and the
// bytes 2 to 3, then the reader's merge. Uniting the two branches of a source into one (an OR
// of their ranges) planned in 0.9 ms but read 35 ms, the count 23: DuckDB skips no row group
// for an OR.
var httpRollups = []records.Rollup{
	{Table: "records_http_minute", Width: 60, Keys: httpKeys, Measures: true, Layer: records.LayerHTTP, HistBytes: true},
	{Table: "records_http_hour", Width: 3600, Keys: httpKeys, Measures: true, Layer: records.LayerHTTP, HistBytes: true},
	{Table: "records_http_10min", Width: 600, Keys: httpKeys, Measures: true, ForHists: true, Layer: records.LayerHTTP, HistBytes: true},
	{Table: "records_http_6hour", Width: 6 * 3600, Keys: httpKeys, Measures: true, ForHists: true, Layer: records.LayerHTTP, HistBytes: true},
}

// httpKeys are the keys of the HTTP layer's rollups.
var httpKeys = []records.Column{records.ColHTTPHost, records.ColHTTPStatus}

// measured returns copies of rs that keep the measures (Measures true).
func measured(rs []records.Rollup) []records.Rollup {
	out := slices.Clone(rs)
	for i := range out {
		out[i].Measures = true
	}
	return out
}

// unmeasured returns copies of rs as the schema steps before 9 made them, without the
// measures: those steps are frozen, so they create and sum the rollups of that shape.
func unmeasured(rs []records.Rollup) []records.Rollup {
	out := slices.Clone(rs)
	for i := range out {
		out[i].Measures = false
	}
	return out
}

// contextRollups are the rollups of the context (zones, autonomous systems, countries) that
// dashboards group by, per minute and per hour, kept in each ingest's transaction as the ones by
// application are: without them a query by a side's AS number or zone read every record of its
// period (BENCHMARKS.md, issue 25). Schema step 6 (migrate.go) made them; frozen there, so
// they are listed apart.
var contextRollups = []records.Rollup{
	{Table: "records_minute_context", Width: 60, Keys: records.ContextKeys},
	{Table: "records_hour_context", Width: 3600, Keys: records.ContextKeys},
}

// minuteKeys are the keys of the rollups without addresses, per minute, 10 minutes and hour.
var minuteKeys = []records.Column{records.ColProtocol, records.ColApplication, records.ColServerPort}

// tenMinutes and sixHours are the rollups per 10 minutes and per 6 hours without addresses;
// schema step 14 made them, and lists them apart.
var (
	tenMinutes = records.Rollup{Table: "records_10min", Width: 600, Keys: minuteKeys, Measures: true, ForHists: true}
	sixHours   = records.Rollup{Table: "records_6hour", Width: 6 * 3600, Keys: minuteKeys, Measures: true, ForHists: true}
)

// hostKeys are the keys of the rollups with addresses.
var hostKeys = []records.Column{records.ColProtocol, records.ColApplication, records.ColServerPort, records.ColServerIP, records.ColClientIP}

// sumRecords is the SQL that sums the records of a WHERE clause, read from from (recordsOf),
// into the rollup's rows in DuckDB, each sum saturated at MaxSum, in table order. The clause
// has no parameters: it is written once for the sums and once for each histogram (sumRows).
func sumRecords(r *records.Rollup, from, where string) string {
	return sumRows(r, from, where, records.BucketStart(strconv.FormatInt(r.Width, 10)), "CAST(COUNT(*) AS UBIGINT)")
}

// insertSums is the SQL that inserts the sums of the records of a WHERE clause into the
// rollup's table (sumRecords), naming the columns it fills: a step of the schema before the
// measures (unmeasured) finds the table of a file that has them, when the file was made by a
// later version and its schema version lost, and leaves them at their defaults.
func insertSums(r *records.Rollup, from, where string) string {
	names, _ := r.Columns()
	return "INSERT INTO " + r.Table + " (" + strings.Join(names, ", ") + ") " + sumRecords(r, from, where)
}

// recordsOf is where sumRecords reads the records of r now: joined to their contexts when a
// key of r is of the context (context.go). The schema's steps before the contexts table read
// the records table, which then held the context.
func recordsOf(r *records.Rollup) string {
	if slices.ContainsFunc(r.Keys, records.Column.Context) {
		return contextFrom
	}
	return "records"
}

// sumRows is the SQL that sums the rows of table src with the condition where into the rows of
// rollup r, in table order: grouped by bucket (the SQL of a row's bucket start, the first
// column) and the rollup's keys, each sum saturated at MaxSum, count the aggregate of the
// record count, and with Measures the measures' sums and each histogram merged (mergeHists).
func sumRows(r *records.Rollup, src, where, bucket, count string) string {
	keys := r.KeyNames()
	sums := "SELECT " + bucket + " AS b, " + strings.Join(keys, ", ") + ", " + strings.Join(rollupAggregates(r, count), ", ") +
		" FROM " + src + " WHERE " + where + " GROUP BY b, " + strings.Join(keys, ", ")
	if !r.Measures {
		return sums
	}
	cols := []string{"s.*"}
	joins := ""
	for i, c := range records.RollupHists {
		h, from := "h"+strconv.Itoa(i), src
		merged := "COALESCE(" + h + ".h, [])"
		if r.HistBytes {
			merged = histBytesSQL(merged)
			if src == r.Table {
				from = "(SELECT * REPLACE (" + histEntriesSQL(c.Name()) + " AS " + c.Name() + ") FROM " + src + ")"
			}
		}
		cols = append(cols, merged+" AS "+c.Name())
		joins += " LEFT JOIN (" + mergeHists(from, where, bucket, keys, c.Name()) + ") AS " + h + " USING (b, " + strings.Join(keys, ", ") + ")"
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM (" + sums + ") AS s" + joins
}

// histBytesSQL is the SQL of the histogram as bytes (records.AppendHistBytes) of entries, an
// array of them by strictly increasing index (as mergeHists gives them): the width of the
// largest in bytes, then each entry's hex digits in twice as many, the whole decoded; no
// bytes for no entries. Where SQL merges the rows of a rollup with HistBytes.
//
// No lambda here or in histEntriesSQL captures a value of its row (the width is zipped to
// each entry): DuckDB evaluates a captured expression for each element, and bytes written
// with the width captured, or read through substrings of the captured hex digits, took time
// quadratic in a row's entries (1.7 s to read the 5,000 hourly rows of 10M requests, 0.16 s
// so).
func histBytesSQL(entries string) string {
	w := "CAST((length(printf('%x', list_max(" + entries + "))) + 1) // 2 AS INTEGER)"
	return "CASE WHEN len(" + entries + ") = 0 THEN ''::BLOB ELSE from_hex(printf('%02x', " + w + ") || array_to_string(list_transform(list_zip(" +
		entries + ", list_resize([]::INTEGER[], len(" + entries + "), " + w + ")), lambda e: lpad(printf('%x', e[1]), 2 * e[2], '0')), '')) END"
}

// histEntriesSQL is the SQL of the entries of the histogram as bytes in column col, an array,
// read through its hex digits after the width's two, twice the width an entry: what
// histBytesSQL was given.
func histEntriesSQL(col string) string {
	w := "CAST('0x0' || left(hex(" + col + "), 2) AS INTEGER)"
	return hexEntriesSQL("substr(hex("+col+"), 3)", "2 * "+w, "octet_length("+col+") = 0")
}

// hexEntriesSQL is the SQL of the entries whose hex digits are hex, digits each (an
// expression), none when empty is true.
func hexEntriesSQL(hex, digits, empty string) string {
	return "CASE WHEN " + empty + " THEN []::UBIGINT[] ELSE list_transform(regexp_extract_all(" + hex + ", '.{' || (" + digits +
		") || '}'), lambda x: CAST('0x' || x AS UBIGINT)) END"
}

// rollupAggregates are the aggregates of the rollup's columns after its keys but for the
// histograms, in table order: the sums, count (the record count's), and with Measures the
// measures' sums.
func rollupAggregates(r *records.Rollup, count string) []string {
	var out []string
	for _, c := range records.RollupSums {
		out = append(out, duckDialect.Partial(c.Name()))
	}
	out = append(out, count)
	if r.Measures {
		for _, c := range records.RollupMeasures {
			out = append(out, duckDialect.Partial(c.Name()))
		}
	}
	return out
}

// mergeHists is the SQL that merges the histogram column col of the rows of table src with the
// condition where, grouped by bucket (as b) and keys, each group's as h: one entry per bucket
// index (records/hist.go), the counts of its entries added up (saturated at MaxHistCount), by
// increasing index, as ingest merges them in Go (sumBatches). A group without entries has no
// row. Used where the rollups are summed in SQL (schema steps, compaction, retention, the
// background step), not by queries, which merge in the reader.
//
// DuckDB has no sumMap: the entries are unnested and summed by group and index, in time linear
// in the entries. Merging each group's entry list with list functions, filtering it once per
// index, took time quadratic in a group's entries: the hourly rollup of 300,000 capture records
// over three hours summed in 5-7 s, so in 0.1-0.2 s (BenchmarkSumRollups, BENCHMARKS.md). A
// merge with list functions in O(n log n) (sort, then sum each index's run from its slice) was
// slower still: its lambdas, capturing the sorted list, took seconds where building the list
// took milliseconds.
func mergeHists(src, where, bucket string, keys []string, col string) string {
	mask, shift := strconv.Itoa(records.HistIndexMask), strconv.Itoa(records.HistShift)
	k := strings.Join(keys, ", ")
	return "SELECT b, " + k + ", list((CAST(LEAST(c, " + strconv.FormatUint(records.MaxHistCount, 10) + ") AS UBIGINT) << " + shift + ") | i ORDER BY i) AS h" +
		" FROM (SELECT b, " + k + ", e & " + mask + " AS i, SUM(e >> " + shift + ") AS c" +
		" FROM (SELECT " + bucket + " AS b, " + k + ", unnest(" + col + ") AS e FROM " + src + " WHERE " + where + ")" +
		" GROUP BY b, " + k + ", i) GROUP BY b, " + k
}
