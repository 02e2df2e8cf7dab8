package records

// Unknown is the application of a record whose server port and protocol name no application.
const Unknown = "unknown"

// tcpApplications names the well-known TCP server ports.
var tcpApplications = map[uint16]string{
	20: "ftp-data", 21: "ftp", 22: "ssh", 23: "telnet", 25: "smtp", 53: "dns", 80: "http",
	88: "kerberos", 110: "pop3", 143: "imap", 179: "bgp", 389: "ldap", 443: "https", 445: "smb",
	465: "smtps", 587: "submission", 636: "ldaps", 853: "dns-over-tls", 993: "imaps", 995: "pop3s",
	1433: "mssql", 1521: "oracle", 2049: "nfs", 3306: "mysql", 3389: "rdp", 5432: "postgresql",
	5672: "amqp", 5900: "vnc", 6379: "redis", 8080: "http-alt", 8443: "https-alt", 9092: "kafka",
	9200: "elasticsearch", 11211: "memcached", 27017: "mongodb",
}

// udpApplications names the well-known UDP server ports.
var udpApplications = map[uint16]string{
	53: "dns", 67: "dhcp", 68: "dhcp", 69: "tftp", 123: "ntp", 137: "netbios-ns", 161: "snmp",
	162: "snmptrap", 443: "quic", 500: "isakmp", 514: "syslog", 1194: "openvpn", 1812: "radius",
	3478: "stun", 4500: "ipsec-nat-t", 5353: "mdns", 51820: "wireguard",
}

// Application returns the name of the application of a conversation under IP protocol proto
// with a server on serverPort: for TCP and UDP the application of the well-known port (443 over
// TCP is "https", 53 over UDP "dns", 123 over UDP "ntp", ...); for other protocols, which have no
// ports, the protocol's name when it has one ("icmp", "icmpv6", "gre", ...); Unknown otherwise.
func Application(proto uint8, serverPort uint16) string {
	var name string
	switch proto {
	case TCP:
		name = tcpApplications[serverPort]
	case UDP:
		name = udpApplications[serverPort]
	default:
		name = protocolNames[proto]
	}
	if name == "" {
		return Unknown
	}
	return name
}
