package demo

import "net/netip"

// Zone is a zone of the demo network, as set-zone takes it.
type Zone struct {
	Name     string
	Networks []string
}

// Application is an application of the demo network, as set-application takes it: each rule
// names a protocol, ports and the servers' networks.
type Application struct {
	Name  string
	Rules []Rule
}

// Rule is one rule of an Application.
type Rule struct {
	Protocol, Ports string
	Networks        []string
}

// Exporter is a router of the demo network and its interfaces, as the exporter_names
// configuration key holds them.
type Exporter struct {
	Address    string      `json:"address"`
	Name       string      `json:"name"`
	Interfaces []Interface `json:"interfaces"`
}

// Interface is an interface of an Exporter.
type Interface struct {
	Index uint32 `json:"index"`
	Name  string `json:"name"`
	Alias string `json:"alias"`
	Speed uint64 `json:"speed,omitempty"`
}

// The routers that export the demo's records.
var (
	hqCore    = netip.MustParseAddr("10.255.0.1")
	lyonEdge  = netip.MustParseAddr("10.255.0.2")
	portoEdge = netip.MustParseAddr("10.255.0.3")
	dcCore    = netip.MustParseAddr("10.255.0.4")
)

// Zones returns the demo network's zones: the head office, two branches, the data centre and
// two customers. They are the demo's alone: a service started with -demo sets them on its
// first start, and an operator who keeps the service for real traffic deletes these names.
func Zones() []Zone {
	return []Zone{
		{Name: "Head office", Networks: []string{"10.0.1.0/24", "192.168.20.0/24", "fd00:20::/64"}},
		{Name: "Branches/Lyon", Networks: []string{"10.1.1.0/24"}},
		{Name: "Branches/Porto", Networks: []string{"10.1.2.0/24"}},
		{Name: "Data centre", Networks: []string{"10.0.0.0/24", "10.0.2.0/24", "10.255.0.0/24", "fd00::/64"}},
		{Name: "Customers/Blue Harbour", Networks: []string{"203.0.113.128/26"}},
		{Name: "Customers/Copper Hill", Networks: []string{"198.51.100.128/26"}},
	}
}

// Applications returns the demo network's applications, named by the servers they run on;
// like Zones, they are the demo's alone.
func Applications() []Application {
	tcp := func(name, ports string, nets ...string) Application {
		return Application{Name: name, Rules: []Rule{{Protocol: "tcp", Ports: ports, Networks: nets}}}
	}
	return []Application{
		tcp("payroll", "8443", "10.0.0.70/32"),
		tcp("crm", "443", "10.0.0.71/32"),
		tcp("customer-portal", "443", "10.0.0.80/32"),
		tcp("partner-api", "443", "203.0.113.40/32"),
		tcp("orders-db", "5432", "10.0.0.40/31"),
		tcp("session-cache", "6379", "10.0.0.42/32"),
	}
}

// Exporters returns the names of the demo's routers and their interfaces, for the
// exporter_names configuration key (the demo has no SNMP agent to poll).
func Exporters() []Exporter {
	return []Exporter{
		{Address: hqCore.String(), Name: "hq-core", Interfaces: []Interface{
			{Index: 1, Name: "Gi0/1", Alias: "Head office LAN and Wi-Fi", Speed: 1000},
			{Index: 3, Name: "Te0/1", Alias: "Data centre", Speed: 10000},
			{Index: 4, Name: "Te0/2", Alias: "Internet uplink", Speed: 10000}}},
		{Address: lyonEdge.String(), Name: "lyon-edge", Interfaces: []Interface{
			{Index: 1, Name: "Gi0/0", Alias: "Lyon branch LAN", Speed: 1000},
			{Index: 2, Name: "Gi0/1", Alias: "MPLS to the head office", Speed: 100}}},
		{Address: portoEdge.String(), Name: "porto-edge", Interfaces: []Interface{
			{Index: 1, Name: "Gi0/0", Alias: "Porto branch LAN", Speed: 1000},
			{Index: 2, Name: "Gi0/1", Alias: "VPN to the head office", Speed: 200}}},
		{Address: dcCore.String(), Name: "dc-core", Interfaces: []Interface{
			{Index: 1, Name: "Te1/1", Alias: "Application servers", Speed: 10000},
			{Index: 2, Name: "Te1/2", Alias: "Databases and caches", Speed: 10000},
			{Index: 3, Name: "Te1/3", Alias: "Internet edge", Speed: 10000},
			{Index: 4, Name: "Te1/4", Alias: "Customer portal DMZ", Speed: 10000}}},
	}
}
