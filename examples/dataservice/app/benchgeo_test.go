package app_test

import (
	"net"
	"os"
	"path/filepath"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"
)

// benchContext says how much context the service resolves for what BenchmarkIngest sends:
// FNAPI_BENCH_CONTEXT=none, none at all (no zones, no GeoIP files: the cost of ingest without
// enrichment); otherwise the demo network's zones (benchZones) and GeoIP files that give each of
// the demo's public servers an AS and a country (benchGeoFiles).
func benchContext() bool { return os.Getenv("FNAPI_BENCH_CONTEXT") != "none" }

// benchGeoFiles writes into dir an ASN and a country file in the GeoLite2 layouts naming the
// networks of the demo's public servers (documentation ranges among them, which no real file
// names), and returns their paths.
func benchGeoFiles(dir string) (asnFile, countryFile string, err error) {
	nets := []struct {
		cidr    string
		asn     uint32
		org, cc string
	}{
		{"93.184.216.0/24", 15133, "EDGECAST", "US"},
		{"203.0.113.0/24", 64501, "BENCH-NET-3", "FR"},
		{"198.51.100.0/24", 64502, "BENCH-NET-2", "DE"},
		{"192.0.2.0/24", 64503, "BENCH-NET-1", "GB"},
		{"2001:db8::/32", 64504, "BENCH-NET-6", "NL"},
	}
	write := func(name, dbType string, rec func(i int) mmdbtype.Map) (string, error) {
		tree, err := mmdbwriter.New(mmdbwriter.Options{DatabaseType: dbType, RecordSize: 24, IncludeReservedNetworks: true,
			Description: map[string]string{"en": dbType + " for the benchmarks"}})
		if err != nil {
			return "", err
		}
		for i, n := range nets {
			_, ipn, err := net.ParseCIDR(n.cidr)
			if err != nil {
				return "", err
			}
			if err := tree.Insert(ipn, rec(i)); err != nil {
				return "", err
			}
		}
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			return "", err
		}
		if _, err := tree.WriteTo(f); err != nil {
			f.Close()
			return "", err
		}
		return path, f.Close()
	}
	if asnFile, err = write("bench-asn.mmdb", "GeoLite2-ASN", func(i int) mmdbtype.Map {
		return mmdbtype.Map{"autonomous_system_number": mmdbtype.Uint32(nets[i].asn), "autonomous_system_organization": mmdbtype.String(nets[i].org)}
	}); err != nil {
		return "", "", err
	}
	countryFile, err = write("bench-country.mmdb", "GeoLite2-Country", func(i int) mmdbtype.Map {
		return mmdbtype.Map{"country": mmdbtype.Map{"iso_code": mmdbtype.String(nets[i].cc)}}
	})
	return asnFile, countryFile, err
}
