package api

import (
	"encoding/json"
	"net/http"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
)

// Error codes of the query language, besides the framework's catalogue, each declared once:
// its HTTP status, its description and its attributes reach doc and the OpenAPI document from
// here.
var (
	// QuerySyntax: a query (of query, or of a widget) is not valid in the query language.
	QuerySyntax = apierr.Declare("QUERY-SYNTAX", http.StatusBadRequest,
		"A query (of query, or of a widget) is not valid in the query language.",
		apierr.Attr("position", "the 0-based character offset in the query where it stops being valid").Typed("integer"),
		apierr.Attr("expected", "what would have been valid there").Typed("string"),
		apierr.Attr("message", "what was found there").Typed("string"),
		apierr.Attr("index", "for a widget, which query of queries, from 0").Typed("integer"))
	// TooManyGroups: the statements of a query yield more groups together than the engine
	// allows.
	TooManyGroups = apierr.Declare("TOO-MANY-GROUPS", http.StatusBadRequest,
		"The statements of a query yield more groups together than the engine allows.",
		apierr.Attr("limit", "the most groups a query may yield").Typed("integer"),
		apierr.Attr("reason", "how to narrow the query").Typed("string"))
)

var (
	// Query answers an expression of the query language; each chunk's result replaces the one
	// before, and the last one is the answer (a call that is not streamed answers the last
	// chunk's result).
	Query = decl.Stream[QueryArgs, Chunk]("query", decl.Errors(QuerySyntax, TooManyGroups, LimitReached, apierr.Unavailable),
		decl.Describe("Answers an expression of the query language over the collected traffic records, one result object per statement. list-fields lists its metrics, keys and layers; the key exporter (the device that exported a record) is there since API 1.2, and query takes it at every version. FROM http, dns or tls reads one record per HTTP request, DNS query or TLS handshake seen by the capture probe, with keys http.method, http.status, http.host, http.path, dns.qname, dns.qtype, dns.rcode, tls.version, tls.cipher, tls.not_after: 'p95(srt), records BY http.host, http.path FROM http TOP 10' answers which URLs are slowest."))
	// Ingest stores a batch of traffic records.
	Ingest = decl.Func[IngestArgs, IngestResult]("ingest", decl.Errors(apierr.Unavailable),
		decl.Describe("Stores a batch of traffic records, all or nothing."))
	// ListFields lists the names of the query language as API 1.1 knew them.
	ListFields = decl.Func[decl.None, []Field]("list-fields", decl.Since("1.1"), decl.Until("1.2"),
		decl.Describe("Lists the metrics, keys and layers of the query language."))
	// ListFields12 lists every name of the query language, each with the API version it
	// appeared in (the key exporter in 1.2).
	ListFields12 = decl.Func[decl.None, []Field]("list-fields", decl.Since("1.2"), decl.Until("1.4"),
		decl.Describe("Lists the metrics, keys and layers of the query language, each with the API version it appeared in (since) when later than 1.0."))
	// ListFields14 lists every name of the query language with the layers whose statements
	// take it (the keys of HTTP, DNS and TLS records, API 1.4).
	ListFields14 = decl.Func[decl.None, []Field]("list-fields", decl.Since("1.4"),
		decl.Describe("Lists the metrics, keys and layers of the query language, each with the API version it appeared in (since) when later than 1.0, and for a key of one layer that layer (layers: [\"http\"] for http.host, which FROM http takes)."))
)

// QueryArgs are the arguments of query.
type QueryArgs struct {
	Expr     string  `json:"expr" jsonschema:"description=An expression of the query language: one or more statements separated by ';'"`
	Follow   bool    `json:"follow,omitempty" jsonschema:"description=Streaming mode only: answer again every interval seconds until cancelled"`
	Interval float64 `json:"interval,omitempty" default:"5" jsonschema:"minimum=1,maximum=3600,description=Seconds between answers when following"`
}

// Chunk is one chunk of a streamed query.
type Chunk struct {
	// Result replaces the result of the previous chunk.
	Result []Result `json:"result"`
	// Progress is the fraction of the answer done, 0..1; 1 on every chunk of a followed query
	// once its first answer is complete.
	Progress float64 `json:"progress"`
}

// IngestArgs are the arguments of ingest.
type IngestArgs struct {
	Records []json.RawMessage `json:"records" jsonschema:"description=Traffic records; all are stored or none"`
}

// IngestResult is the answer of ingest.
type IngestResult struct {
	Ingested int `json:"ingested"`
}

// Field describes one name of the query language, for the list-fields function and UIs.
type Field struct {
	// Name is the name as written in queries ("traffic", "client.ip", "time(N)", "p95(m)",
	// "tcp").
	Name string `json:"name"`
	// Kind is "metric" (a value in values and HAVING), "function" (of a metric, in values
	// and HAVING: "p95(m)"), "key" (in BY; every key but time is also a field of WHERE) or
	// "layer" (in FROM).
	Kind string `json:"kind"`
	// Type is the kind of data: "bytes", "packets", "count", "time", "ip", "port",
	// "protocol", "string" or "layer".
	Type string `json:"type"`
	// Description says what it means, in one sentence or two.
	Description string `json:"description"`
	// Since is the API version the name appeared in; empty for those of the first version.
	Since string `json:"since,omitempty"`
	// Layers are the layers (FROM) whose statements take the name ("http" for http.host);
	// none for a name of every layer.
	Layers []string `json:"layers,omitempty"`
}
