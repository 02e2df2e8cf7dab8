package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ClickHouseServer is a clickhouse-server the test started, with its configuration and data in
// a temporary directory and free ports. Stop and Start stop it (by PID) and start it again on
// the same data, for fault tests; the test's cleanup stops it.
type ClickHouseServer struct {
	// URL is the service's -clickhouse flag for this server's "default" database.
	URL string
	// TCPPort is the native protocol's port; HTTPPort the HTTP interface's.
	TCPPort, HTTPPort int

	process
	config string
}

// ClickHouseClusterName is the name of the cluster ClickHouseCluster configures.
const ClickHouseClusterName = "shards"

// ClickHouse starts a single clickhouse-server (Debian's clickhouse-server package). Without
// it the test skips, or fails under CI.
func ClickHouse(t testing.TB) *ClickHouseServer {
	t.Helper()
	return ClickHouseCluster(t, 1)[0]
}

// ClickHouseCluster starts n clickhouse-servers that share a remote_servers entry named
// ClickHouseClusterName, one shard each: a cluster on one machine. Tables on it are created on
// each server (ON CLUSTER would need ZooKeeper).
func ClickHouseCluster(t testing.TB, n int) []*ClickHouseServer {
	t.Helper()
	binary := Need(t, "clickhouse-server", "clickhouse-server")
	servers := make([]*ClickHouseServer, n)
	var shards strings.Builder
	for i := range servers {
		s := &ClickHouseServer{process: process{t: t, binary: binary}, TCPPort: FreePort(t), HTTPPort: FreePort(t)}
		s.URL = fmt.Sprintf("clickhouse://127.0.0.1:%d/default", s.TCPPort)
		fmt.Fprintf(&shards, "<shard><replica><host>127.0.0.1</host><port>%d</port></replica></shard>", s.TCPPort)
		servers[i] = s
	}
	for _, s := range servers {
		dir := t.TempDir()
		s.config = filepath.Join(dir, "config.xml")
		users := filepath.Join(dir, "users.xml")
		config := fmt.Sprintf(chConfig, s.TCPPort, s.HTTPPort, dir, dir, dir, dir, users, ClickHouseClusterName, shards.String(), ClickHouseClusterName)
		if err := os.WriteFile(s.config, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(users, []byte(chUsers), 0o600); err != nil {
			t.Fatal(err)
		}
		log, err := os.Create(filepath.Join(dir, "server.log"))
		if err != nil {
			t.Fatal(err)
		}
		s.log = log
		t.Cleanup(func() {
			s.Stop()
			log.Close()
		})
		s.Start()
	}
	return servers
}

// Start starts the server (again) and waits until it answers, at most 30 s.
func (s *ClickHouseServer) Start() {
	s.t.Helper()
	s.run("--config-file=" + s.config)
	s.waitOK(fmt.Sprintf("http://127.0.0.1:%d/ping", s.HTTPPort), "clickhouse-server to answer")
}

// Stop kills the server by its PID (SIGKILL: what it has acknowledged must survive) and
// waits for it to exit. Stopping a stopped server does nothing.
func (s *ClickHouseServer) Stop() { s.stop() }

// chConfig is a server's configuration: ports, paths in the test's directory, no logs but
// warnings to the console, and the cluster. Arguments: tcp port, http port, four times the
// directory, the users file, the cluster name, its shards, the cluster name.
const chConfig = `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><console>1</console></logger>
  <listen_host>127.0.0.1</listen_host>
  <tcp_port>%d</tcp_port>
  <http_port>%d</http_port>
  <path>%s/data/</path>
  <tmp_path>%s/tmp/</tmp_path>
  <user_files_path>%s/user_files/</user_files_path>
  <format_schema_path>%s/format_schemas/</format_schema_path>
  <mark_cache_size>268435456</mark_cache_size>
  <users_config>%s</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <remote_servers><%s>%s</%s></remote_servers>
</yandex>
`

// chUsers has one user, default, without a password, reachable from the loopback only.
const chUsers = `<?xml version="1.0"?>
<yandex>
  <profiles><default></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
`
