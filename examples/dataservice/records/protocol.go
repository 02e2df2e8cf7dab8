package records

import (
	"fmt"
	"strconv"
	"strings"
)

// IP protocol numbers of the protocols the service names.
const (
	ICMP   uint8 = 1
	TCP    uint8 = 6
	UDP    uint8 = 17
	ICMPv6 uint8 = 58
)

// protocolNames holds the protocols known by name, by number.
var protocolNames = map[uint8]string{
	ICMP:   "icmp",
	2:      "igmp",
	TCP:    "tcp",
	UDP:    "udp",
	47:     "gre",
	50:     "esp",
	51:     "ah",
	ICMPv6: "icmpv6",
	132:    "sctp",
}

// ProtocolName returns the name of IP protocol number p ("tcp", "udp", "icmp", ...), or its
// decimal number when the protocol has no name here ("89").
func ProtocolName(p uint8) string {
	if name, ok := protocolNames[p]; ok {
		return name
	}
	return strconv.Itoa(int(p))
}

// ParseProtocol returns the IP protocol number of s: a name that ProtocolName returns
// (case-insensitive) or a decimal number 0..255.
func ParseProtocol(s string) (uint8, error) {
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		n, err := strconv.ParseUint(s, 10, 8)
		if err != nil {
			return 0, fmt.Errorf("records: protocol %q: not a number 0..255", s)
		}
		return uint8(n), nil
	}
	lower := strings.ToLower(s)
	for p, name := range protocolNames {
		if name == lower {
			return p, nil
		}
	}
	return 0, fmt.Errorf("records: unknown protocol %q (want tcp, udp, icmp, ... or a number 0..255)", s)
}
