package app

// The records engines the service offers: each registers itself in records' table of engines
// (records.Open) by the scheme of its URLs. A new engine is one more import here.
import (
	_ "github.com/fnapi/fnapi/examples/dataservice/records/clickhouse" // clickhouse://
	_ "github.com/fnapi/fnapi/examples/dataservice/records/duckdb"     // duckdb:<dir>, a path
)
