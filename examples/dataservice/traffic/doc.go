// Package traffic holds the data service's functions over the collected traffic records:
// query (the query language, also streamed, and followed live), ingest and list-fields.
//
// query answers one result object per statement of its expression. In streaming mode its
// chunks are {"result": [...], "progress": 0..1}: each chunk's result replaces the previous one
// and the last equals the non-streaming answer. With follow (streaming mode only) the query is
// answered again every interval seconds over a period that moves with @now, until the call is
// cancelled; live dashboards use it. Only the first answer comes in slices: each later one is
// one chunk with the full answer and progress 1, so a dashboard never falls back to a part.
//
// Live dashboards scale with viewers, not with queries: the callers following the same
// expression (compared with its white space outside quoted strings collapsed) at the same
// interval share one computation per interval (hub.go), which stops with its last follower, so
// fifty wall screens on one dashboard cost about what one does (BENCHMARKS.md). A caller's
// first answer is the shared computation's last one (at most an interval old) when there is
// one, else its own, streamed in slices; the later ones are the shared ones. Sharing is safe
// because an answer depends only on the expression, the time and the service's default
// period: the query language has no per-user data, and each caller's right to call query is
// checked before it joins. A failed shared answer ends every follower with its error; the next
// follower starts a fresh computation.
//
// Each shared computation holds one Follower for as long as it runs. With Service.Live set
// (the data service sets it on DuckDB, whose records change only through its own process), it
// is incremental: a pvql.Live, which keeps each statement's group sums per bucket of its
// period and each interval reads only the seconds the period gained and the buckets that
// writes touched, as the store reports them (records.Changes); its answers equal a fresh
// query's at every interval, late records included (pvql's Live documents how, and its bounds).
// Without it (ClickHouse, which other nodes may write) each interval answers the whole period
// afresh.
//
// A query is bounded as a whole: the groups of all its statements together (pvql.WithMaxGroups,
// TOO-MANY-GROUPS with limit), the groups of all queries running at once (pvql.WithGroupBudget,
// RATE-LIMITED), and the followed queries one caller holds open (Service.MaxFollows,
// LIMIT-REACHED; a user's over all their connections). What a shared computation's Live keeps
// between answers counts against the caller who started it (Service.Live's ctx): package query
// bounds it per user and for all standing queries (pvql.WithKeepBudget), past which the
// computation answers afresh. query and list-fields need the read-only role, ingest the user role.
//
// ingest stores a batch of records all or nothing; the first bad record answers
// INVALID-ARGUMENT with name "records", its index, the field and the reason.
//
// When the records store cannot be reached (a ClickHouse server or shard down), query and
// ingest answer UNAVAILABLE (HTTP 503): the call may be retried; the other functions of the
// service do not need the records store and keep working.
package traffic
