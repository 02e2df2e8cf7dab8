package console

import (
	_ "embed"

	"github.com/fnapi/fnapi/mcp"
)

// queryLanguage is the query language for a model: examples, grammar, rules. It is the
// resource pvql://grammar of the MCP endpoint.
//
//go:embed querylang.md
var queryLanguage string

// agents is what the MCP endpoint (/api/mcp) adds to the functions: instructions and tool
// descriptions written for a model, the resources an agent reads before it queries, and the
// prompts it is offered. See docs/agents.md, "Serving the service to AI agents".
var agents = mcp.Options{
	Name: "dataservice",
	Instructions: "A network traffic monitor: it collects traffic records (one per conversation and time slice: " +
		"client and server addresses, ports, bytes, packets, protocol, application) and answers questions about them " +
		"with the query tool. Read the resource pvql://grammar before writing a query; list-fields lists the fields. " +
		"Dashboards group saved queries as widgets.",
	Descriptions: map[string]string{
		"query": "Answers questions about network traffic with the query language. A statement is values, then clauses: " +
			"`traffic BY client.ip TOP 10` (the ten clients with the most bytes in the last hour), " +
			"`traffic, packets BY application WHERE server.port IN (80, 443)`, " +
			"`records BY time(300) SINCE @now-86400` (records per 5 minutes over a day), " +
			"`traffic BY server.ip SINCE @now-7200 UNTIL @now-3600` (the hour before the last). " +
			"Metrics: traffic, client.traffic, server.traffic (bytes), packets (also client./server.), records. " +
			"Keys: client.ip, server.ip, client.port, server.port, protocol, application, exporter, time(N seconds). " +
			"Clauses: BY, FROM tcp|udp|icmp|http|dns|tls, WHERE, HAVING, TOP n, SINCE t, UNTIL t (t is Unix seconds or @now-N; default: the last hour). " +
			"FROM http reads one record per HTTP request (keys http.method, http.status, http.host, http.path; srt is its response time), " +
			"FROM dns one per DNS query (dns.qname, dns.qtype, dns.rcode), FROM tls one per handshake (tls.version, tls.cipher, tls.not_after): " +
			"`p95(srt), records BY http.host, http.path FROM http TOP 10` (the slowest URLs), " +
			"`records BY dns.qname FROM dns WHERE dns.rcode IN (NXDOMAIN, timeout)` (failing names). " +
			"Several statements separated by ';' answer one result each: {data: [[keys, values], ...], meta}. " +
			"The full grammar and rules are in the resource pvql://grammar, the fields in pvql://fields. " +
			"A syntax error is a QUERY-SYNTAX error with position and expected: fix the expression there.",
		"list-fields":      "Lists the metrics, keys and layers of the query language, with what each means. Read it to know what a query can group by or measure.",
		"list-dashboards":  "Lists the dashboards (without their widgets): id, title, description. get-dashboard gives one with its widgets and their queries.",
		"get-dashboard":    "Answers one dashboard with its widgets; each widget holds the queries it charts, which the query tool can run.",
		"collector-status": "Answers what the NetFlow/IPFIX/sFlow collectors received: per exporter (the device that sends flows), datagrams, records and errors.",
		"ingest":           "Stores traffic records (all or none). Only for feeding data: do not call it to answer a question.",
		"get-api-version":  "Answers the API version this endpoint serves.",
		"doc":              "Describes every function of the API: arguments, results, errors. The resource doc://api holds the same.",
		"whoami":           "Answers who the caller is: user, role and token kind.",
		"list-audit":       "Lists the audit trail: who changed what, when, from where. Administrators only.",
		"echo":             "Answers its arguments as they came: a connectivity check.",
	},
	Resources: []mcp.Resource{
		{URI: "pvql://grammar", Name: "query-language", Title: "The query language",
			Description: "Examples, grammar and rules of the query language the query tool answers.",
			MIMEType:    "text/markdown", Text: queryLanguage},
		{URI: "pvql://fields", Name: "fields", Title: "The fields of the query language",
			Description: "Every metric, key and layer, with its meaning (the list-fields function; API 1.1 on).",
			Function:    "list-fields"},
		{URI: "doc://api", Name: "api", Title: "The API",
			Description: "Every function: arguments, result, errors (the doc function).", Function: "doc"},
	},
	Prompts: []mcp.Prompt{{
		Name:        "what-changed",
		Title:       "What changed in the last hour",
		Description: "Investigates what changed in the network's traffic in the last hour, against the hour before.",
		Text: "Investigate what changed in the network traffic in the last hour. Use the query tool; read the resource " +
			"pvql://grammar first if you do not know the query language. Compare the last hour (SINCE @now-3600) with " +
			"the hour before (SINCE @now-7200 UNTIL @now-3600), in one query of several statements where you can: " +
			"total traffic, packets and records; traffic BY application TOP 10; traffic BY server.ip TOP 10; " +
			"traffic BY client.ip TOP 10; records BY protocol; and traffic BY time(300) SINCE @now-7200 to see when a " +
			"change started. Report what grew or shrank the most (in bytes and as a share), new talkers or " +
			"applications that were absent before, and any port or protocol that appeared. Quote the figures you " +
			"rely on, and say when a change is too small to matter.",
	}},
}

// MCP returns what the MCP endpoint adds to the functions: instructions, tool descriptions,
// resources and prompts written for a model.
func MCP() mcp.Options { return agents }
