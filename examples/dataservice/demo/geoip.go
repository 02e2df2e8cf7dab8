package demo

import (
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"
)

// Network is a public network of the demo: its autonomous system and country.
type Network struct {
	CIDR    string
	ASN     uint32
	Org     string
	Country string
}

// Networks returns the public networks the demo's servers and customers are in: documentation
// addresses (RFC 5737, RFC 3849) and AS numbers (RFC 5398), with invented names, never a real
// organisation's.
func Networks() []Network {
	return []Network{
		{"192.0.2.0/25", 64502, "Example News Network", "GB"},
		{"192.0.2.128/25", 64504, "Example Time Service", "SE"},
		{"198.51.100.0/27", 64501, "Example CDN", "FR"},
		{"198.51.100.32/27", 64503, "Example Public DNS", "NL"},
		{"198.51.100.64/26", 64506, "Example Games", "JP"},
		{"198.51.100.128/26", 65538, "Example Copper Hill Telecom", "AU"},
		{"203.0.113.0/27", 64500, "Example Cloud Hosting", "US"},
		{"203.0.113.32/27", 65536, "Example Partner Services", "CH"},
		{"203.0.113.64/27", 64505, "Example Broadband", "BR"},
		{"203.0.113.128/26", 65537, "Example Blue Harbour Networks", "CA"},
		{"2001:db8:80::/48", 64500, "Example Cloud Hosting", "US"},
	}
}

// GeoIP file names WriteGeoIP writes in its directory.
const (
	GeoIPASN     = "demo-asn.mmdb"
	GeoIPCountry = "demo-country.mmdb"
)

// WriteGeoIP writes the demo's MaxMind DB files into dir (created when missing): GeoIPASN,
// of the GeoLite2-ASN layout (database type "Demo-ASN"), and GeoIPCountry, of the
// GeoLite2-Country layout ("Demo-Country"), both holding Networks. Each replaces the file
// of its name atomically, as an updater does. It returns their paths.
func WriteGeoIP(dir string) (asn, country string, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("demo: %w", err)
	}
	asn = filepath.Join(dir, GeoIPASN)
	err = writeMMDB(asn, "Demo-ASN", func(n Network) mmdbtype.Map {
		return mmdbtype.Map{"autonomous_system_number": mmdbtype.Uint32(n.ASN),
			"autonomous_system_organization": mmdbtype.String(n.Org)}
	})
	if err != nil {
		return "", "", err
	}
	country = filepath.Join(dir, GeoIPCountry)
	err = writeMMDB(country, "Demo-Country", func(n Network) mmdbtype.Map {
		return mmdbtype.Map{"country": mmdbtype.Map{"iso_code": mmdbtype.String(n.Country)}}
	})
	if err != nil {
		return "", "", err
	}
	return asn, country, nil
}

// writeMMDB writes a MaxMind DB file of type dbType at path holding rec of each of Networks.
func writeMMDB(path, dbType string, rec func(Network) mmdbtype.Map) error {
	tree, err := mmdbwriter.New(mmdbwriter.Options{DatabaseType: dbType, RecordSize: 24,
		IncludeReservedNetworks: true, // documentation addresses are reserved ones
		Description:             map[string]string{"en": "The fnapi data service's demo: documentation addresses only"}})
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	for _, n := range Networks() {
		_, ipn, err := net.ParseCIDR(n.CIDR)
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		if err := tree.Insert(ipn, rec(n)); err != nil {
			return fmt.Errorf("demo: %s: %w", n.CIDR, err)
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".demo-*.mmdb")
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tree.WriteTo(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("demo: %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	return nil
}
