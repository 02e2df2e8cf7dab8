package api

import (
	"time"

	"github.com/fnapi/fnapi/decl"
)

// The zone and application functions (API 1.3): the operator's names for networks and
// applications, which give records their client.zone, server.zone and application.
// Administrators call them; every change is audited and reaches every node.
var (
	ListZones = decl.Func[decl.None, []Zone]("list-zones", decl.Since("1.3"),
		decl.Describe("Lists every zone, by name: a named set of networks. Names nest by \"/\" (\"Customers/ACME\" is in \"Customers\"); "+
			"an address is in the zone of the most specific network holding it, and outside every zone in \"other\"."))
	SetZone = decl.Func[SetZoneArgs, Zone]("set-zone", decl.Since("1.3"), decl.Errors(LimitReached),
		decl.Describe("Creates or replaces a zone and answers it. A network must be a CIDR without host bits, "+
			"in no other zone. Records that arrive afterwards take the new zones; those stored before keep theirs."))
	DeleteZone = decl.Func[NameArgs, bool]("delete-zone", decl.Since("1.3"),
		decl.Describe("Deletes a zone; answers true. A zone an application's rule names cannot be deleted."))
	ListApplications = decl.Func[decl.None, []Application]("list-applications", decl.Since("1.3"),
		decl.Describe("Lists the operator's applications, by name, with their rules."))
	SetApplication = decl.Func[SetApplicationArgs, Application]("set-application", decl.Since("1.3"), decl.Errors(LimitReached),
		decl.Describe("Creates or replaces an application and answers it. A record takes the application of the most specific rule it matches: "+
			"by the longer network holding the server, then the deeper server zone, then client zone, then the narrower port range, then a protocol; "+
			"without one, the built-in name of its server port, then the server's name the probe saw, then \"unknown\". "+
			"A rule that can never match (a zone that does not exist, ports on a protocol without them, a reversed range) is refused."))
	DeleteApplication = decl.Func[NameArgs, bool]("delete-application", decl.Since("1.3"),
		decl.Describe("Deletes an application; answers true."))
)

// NameArgs name one zone or application.
type NameArgs struct {
	Name string `json:"name" jsonschema:"minLength=1,maxLength=200,description=Name of the zone or application"`
}

// Zone is a zone as the functions answer it.
type Zone struct {
	Name     string    `json:"name"`
	Networks []string  `json:"networks"`
	Updated  time.Time `json:"updated"`
}

// SetZoneArgs are the arguments of set-zone.
type SetZoneArgs struct {
	Name     string   `json:"name" jsonschema:"minLength=1,maxLength=200,description=Name of the zone; \"/\" nests (Customers/ACME)"`
	Networks []string `json:"networks" jsonschema:"maxItems=10000,description=CIDRs (IPv4 or IPv6) without host bits\\, such as 10.1.0.0/16"`
}

// Application is one of the operator's applications as the functions answer it.
type Application struct {
	Name    string            `json:"name"`
	Rules   []ApplicationRule `json:"rules"`
	Updated time.Time         `json:"updated"`
}

// ApplicationRule is one rule of an application: a record matches when it matches every
// condition set (an empty one is any).
type ApplicationRule struct {
	Protocol   string   `json:"protocol" jsonschema:"maxLength=10,description=tcp\\, udp\\, icmp\\, icmpv6\\, sctp or a number; empty for any"`
	Ports      string   `json:"ports" jsonschema:"maxLength=11,description=The server port (443) or range (8000-8100); empty for any"`
	ServerZone string   `json:"server_zone" jsonschema:"maxLength=200,description=A zone the server is in (or nested in); empty for any"`
	ClientZone string   `json:"client_zone" jsonschema:"maxLength=200,description=A zone the client is in (or nested in); empty for any"`
	Networks   []string `json:"networks" jsonschema:"maxItems=100,description=CIDRs one of which holds the server; empty for any"`
}

// SetApplicationArgs are the arguments of set-application.
type SetApplicationArgs struct {
	Name  string            `json:"name" jsonschema:"minLength=1,maxLength=200,description=Name of the application"`
	Rules []ApplicationRule `json:"rules" jsonschema:"minItems=1,maxItems=100,description=The rules that name it"`
}
