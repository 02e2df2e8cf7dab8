// Package pvql is the query engine of the example data service: it parses the service's query
// language (modelled on PVQL; this documentation and the service's docs/query-language.md, section "The query
// language", describe it) and answers it from a records store (see package records: DuckDB, or
// ClickHouse).
//
// Parse and Validate check an expression; an error is a *SyntaxError with the 0-based
// character Position of the problem and what was Expected there. An Engine answers
// expressions with Query, or progressively with Stream; Fields describes the language's
// metrics, keys and layers for clients.
//
// # Literals
//
//   - Numbers: digits with an optional fraction and an optional decimal exponent (12, 0.5,
//     1e9, 2.5E-3, 1e+6); no SI suffix (1G would have to guess between 10^9 and 2^30). Where
//     an integer is wanted (TOP, time(N), SINCE/UNTIL, a baseline's offset and windows): digits
//     only. A number in HAVING and in SINCE/UNTIL may have a leading "-".
//   - Strings: in single or double quotes; a backslash makes the next character literal
//     ('it\'s'). Aliases (AS "name") are strings.
//   - Addresses: bare IPv4 (10.0.0.1) or IPv6 (2001:db8::1), or a quoted string holding one;
//     an IPv4 address and its IPv4-mapped IPv6 form (::ffff:10.0.0.1) are the same address.
//   - CIDR: a bare address with "/bits" (10.0.0.0/8, 2001:db8::/32), after IN or inside an
//     IN list of client.ip or server.ip; host bits are ignored.
//   - Protocols: a name of records.ProtocolName (tcp, udp, icmp, gre, ...; bare or quoted,
//     any case) or a number 0-255.
//   - Applications: a quoted string or a bare name (application = https).
//   - Names of keywords, metrics, keys and layers are case-insensitive; aliases are not.
//
// In HAVING a value is an arithmetic expression over metrics, an alias in quotes, or an
// alias written bare when it is no metric name; it is compared with numbers or with another
// value (traffic > 3 * baseline(traffic, 7d)).
//
// baseline(x, OFFSET[, N]) is the value x over the statement's period moved back by OFFSET
// (seconds, or a number and one unit of s, m, h, d or w), or the average over the N periods
// moved back by OFFSET, 2×OFFSET, ... (N at most 52; each is one more read of the store). A
// group absent from an earlier period counts as having no records there. A followed query
// with a baseline answers in full at each interval.
//
// p50(m), p95(m), p99(m) and max(m) are percentiles of a time metric m with a histogram
// (client.rtt, server.rtt, ct, srt, dtt; quantile.go): the value, in seconds within 2 %, of
// the bucket holding the sample of rank ceil(q·n) of the group's n samples, from the records'
// histograms merged (Query.Hists); null without samples. rtt and eurt, sums of times, have no
// percentile (a *SyntaxError at the metric). A baseline cannot hold one; a followed query
// with one answers in full at each interval.
//
// # Limits
//
// An expression longer than MaxLength characters, nested deeper than MaxDepth parentheses or
// NOTs, or holding more than MaxStatements statements is a *SyntaxError, so no input can
// exhaust the parser; so is time(N) with N above 2^32 seconds. SINCE and UNTIL are clamped to
// ±2^53 seconds. Statements that yield more groups together than WithMaxGroups allows fail
// with ErrTooManyGroups.
//
// # Semantics
//
//   - Period: SINCE..UNTIL; a record counts when since <= time < until. Without SINCE the
//     period starts the default period length before its end; without UNTIL it ends at now.
//     The default period length and now are arguments of Query and Stream, both truncated to
//     whole seconds; an empty or reversed period matches nothing and has accumulated_time 0.
//   - Values are computed in float64 on each group's sums, each exact below records.MaxSum
//     (2^64-1) and saturated at it (traffic, client plus server, too), never wrapped around: a
//     value of 18446744073709551615 (1.8446744073709552e19) means "at least that". A division
//     by zero, or any result that is not a finite number, is null (NaN in Row.Values, null in
//     JSON) and stays null through further arithmetic. In HAVING a comparison with null is false.
//   - time(N): the point T (a multiple of N) covers [T-N, T). At most one time key.
//   - exporter (API 1.2) is the address of the device that exported a record (the flow
//     collectors set it; ingest may). It filters as client.ip does (=, IN, CIDRs); in results
//     a record without one has the key null, which sorts before every address.
//   - The context keys (API 1.3) read what the service resolved when each record arrived:
//     client.zone and server.zone ("other", stored as "", outside every zone; a literal
//     ending in "/" is the zone and every zone nested under it, with = or IN, as in
//     client.zone IN "Customers/"), client.asn and server.asn ({"asn", "name"}; literals are
//     numbers, null for unknown), client.country and server.country (ISO codes, upper-cased),
//     in_if and out_if ({"index", "name", "alias"}; literals are indexes) and exporter.name.
//     A key's names (an AS's, an interface's) are grouped with its number: the same number
//     under two names, before and after a rename, is two rows, ordered by name.
//   - The route keys (API 1.4, with -bgp) read the BGP route that covered each side's address
//     in the table of the record's exporter when it arrived: client.as_path and
//     server.as_path (a list of AS numbers, the router's neighbour first, the origin last)
//     and client.communities and server.communities (a list of "A:B", large ones "A:B:C");
//     null when empty. BY groups by the whole list, ordered by its text. WHERE takes =, !=
//     and IN with one AS number or community each: server.as_path = 64500 holds when 64500 is
//     in the path, server.communities IN ("65000:100", "65000:200") when either is among the
//     route's; null is the empty list. The route's origin is also client.asn / server.asn.
//   - Without BY the result has exactly one row, zeros when nothing matched, unless HAVING
//     removes it.
//   - Order: by the first value descending (null after every number), ties by the keys in BY
//     order ascending: ports, protocols (by number) and times numerically, addresses by
//     their 128-bit value (so every IPv4 address sorts before non-mapped IPv6 ones above
//     ::ffff:255.255.255.255), applications by bytes. meta.sorted is true. With a time key
//     rows are ordered by time first, and meta.sorted is false.
//   - HAVING keeps the rows (with a time key: each time point of a group) that satisfy it.
//     TOP N then keeps the N groups, ignoring time, with the largest first value computed
//     over the whole period, among the groups that still have rows; ties by keys.
//   - meta.accumulated_time is the length of the period in seconds (in a partial streamed
//     result, the part answered so far); meta.elapsed is the seconds spent answering.
//
// # Execution
//
// Each statement compiles to one records.Query that sums, per group, only the base quantities
// its values and HAVING need (bytes and packets of each side, record count), with the layer
// and WHERE as a condition on columns; the store compiles that once to one parameterised query
// in its own SQL, with the period as parameters. Expressions never reach the SQL text: only
// column names and parameters do.
//
// The statements of one expression that resolve to the same period are compiled together
// (records.Reader's Compile of several Queries) and read in one pass over the records where
// the store can: DuckDB answers all those of one layer and WHERE with one SELECT grouping by
// GROUPING SETS, so a dashboard's statements share their read of the records (BENCHMARKS.md
// has the figures). Statements of other periods, layers or WHERE are read in turn, as are
// ClickHouse's (its oldest supported server has no grouping sets). The answers are those of
// each statement alone (TestSharedScanAnswersAsEachStatement). Statements grouping and
// filtering only by protocol, application, server.port and time(N) with N a multiple of 60 read
// the whole minutes of their period from DuckDB's per-minute rollup, and with N a multiple of
// 3600 (or no time key) the whole hours from its hourly one; those that also group or filter
// by server.ip and client.ip read the whole hours from its hourly rollup of addresses, the
// rest of the period from the records (package records): one SELECT for the statements that
// read the same rollups, and these SELECTs side by side.
//
// Each metric, key and layer is described once, in a table (metrics, keyKinds, layers) that
// the parser, the compiler, grouping, ordering, rendering and Fields all read; a key's type
// (ip, port, protocol, string) says how its literals parse and its values show. Adding a key
// is one row there plus its column in package records; TestDescriptors checks every row
// against the in-test reference. Values, HAVING, TOP and the
// order are computed in Go on the group sums. Stream answers the period in slices, newest
// first, merging the sums, so each partial result is exact for the part of the period read.
//
// # Followed queries
//
// A Live answers one expression again and again as time passes, each answer equal to Query's
// at its time (TestLiveAnswersAsQuery checks it at every step against a fresh Query, on DuckDB
// and ClickHouse). It compiles each statement with a time bucket as a last key (about 64
// buckets of whole minutes over the period, so whole buckets still read from the rollup) and
// the record count among its sums, and keeps each group's sums over the period (the totals)
// and, for the first bucket and the recentBuckets (4) last ones, per bucket (their detail; the
// first bucket also per second). Each answer reads the seconds the period gained (added) and,
// whole, each detailed bucket whose counted part a write touched since the last answer, as the
// store's records.Changes reports (late records, retention), replacing its detail in the
// totals. The seconds the period lost are dropped from the first bucket's per-second detail
// without reading; a bucket the start enters is read as the totals count it (subtracted) and
// per second. A write into a bucket without detail, or during the answer into seconds it
// subtracted without detail, makes it read the period afresh; one into seconds it subtracted
// from a detailed bucket (a period that moved back) makes it read that bucket again before
// answering. Only whole-number sums below records.MaxSum are kept (one that reaches it makes
// the Live answer with Query for good), so dropping and subtracting are exact, and a group
// leaves when its record count reaches zero; values, HAVING, TOP and the order are
// computed on the totals at each answer, as Query does. What it keeps (the totals and the
// detail) is bounded by WithMaxGroups, past which it answers with Query for good, and
// reserved in the group budget (WithGroupBudget) and the keep budgets (WithKeepBudget) while
// it lives, one of which when spent makes it drop what it kept and answer with Query, building
// again at the next answer. Without a
// records.Changes (a store other processes write) every answer is Query's.
package pvql
