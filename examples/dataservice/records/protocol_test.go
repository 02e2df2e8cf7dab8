package records_test

import (
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

func TestProtocolNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		num  uint8
		name string
	}{
		{1, "icmp"}, {6, "tcp"}, {17, "udp"}, {58, "icmpv6"}, {0, "0"}, {89, "89"}, {255, "255"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := records.ProtocolName(tt.num); got != tt.name {
				t.Errorf("ProtocolName(%d) = %q, want %q", tt.num, got, tt.name)
			}
			if got, err := records.ParseProtocol(tt.name); err != nil || got != tt.num {
				t.Errorf("ParseProtocol(%q) = %d, %v; want %d", tt.name, got, err, tt.num)
			}
		})
	}
	for _, bad := range []string{"", "foo", "256", "-1", "6a", " tcp"} {
		if p, err := records.ParseProtocol(bad); err == nil {
			t.Errorf("ParseProtocol(%q) = %d, want an error", bad, p)
		}
	}
}

func TestApplication(t *testing.T) {
	t.Parallel()
	tests := []struct {
		proto uint8
		port  uint16
		want  string
	}{
		{records.TCP, 80, "http"}, {records.TCP, 443, "https"}, {records.UDP, 53, "dns"},
		{records.TCP, 53, "dns"}, {records.TCP, 22, "ssh"}, {records.UDP, 123, "ntp"},
		{records.TCP, 25, "smtp"}, {records.TCP, 5432, "postgresql"}, {records.TCP, 8080, "http-alt"},
		{records.UDP, 443, "quic"}, {records.TCP, 123, records.Unknown},
		{records.TCP, 4444, records.Unknown}, {records.ICMP, 0, "icmp"}, {records.ICMPv6, 80, "icmpv6"}, {89, 0, records.Unknown},
	}
	for _, tt := range tests {
		if got := records.Application(tt.proto, tt.port); got != tt.want {
			t.Errorf("Application(%d, %d) = %q, want %q", tt.proto, tt.port, got, tt.want)
		}
	}
}

func FuzzParseProtocol(f *testing.F) {
	for _, s := range []string{"tcp", "UDP", "icmpv6", "6", "255", "256", "", "06"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := records.ParseProtocol(s)
		if err != nil {
			return
		}
		if back, err := records.ParseProtocol(records.ProtocolName(p)); err != nil || back != p {
			t.Fatalf("ParseProtocol(ProtocolName(%d)) = %d, %v", p, back, err)
		}
	})
}
