package main

import (
	"strings"
	"testing"
)

// TestCommandLineBGPErrors checks the one-line errors of the BGP flags.
func TestCommandLineBGPErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-bgp-as", "64500"}, "give -bgp ADDR too"},
		{[]string{"-bgp", "127.0.0.1:1179", "-bgp-as", "64500"}, "-bgp ADDR needs -bgp-as N"},
		{[]string{"-bgp", "127.0.0.1:1179", "-bgp-peers", "10.0.0.0/8"}, "-bgp ADDR needs -bgp-as N"},
		{[]string{"-bgp-as", "0"}, "is not an AS number"},
		{[]string{"-bgp-as", "4294967296"}, "is not an AS number"},
		{[]string{"-bgp-peers", "10.0.0.0/8,router"}, `"router" is neither a prefix nor an address`},
	} {
		_, err := parseFlags(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", tc.args, err, tc.want)
		}
	}
	o, err := parseFlags([]string{"-bgp", "127.0.0.1:1179", "-bgp-as", "64500", "-bgp-peers", "10.0.0.0/8, 192.0.2.7"})
	if err != nil || o.cfg.BGP.AS != 64500 || len(o.cfg.BGP.Peers) != 2 || o.cfg.BGP.Peers[1].String() != "192.0.2.7/32" {
		t.Errorf("parseFlags: %+v, %v", o.cfg.BGP, err)
	}
}
