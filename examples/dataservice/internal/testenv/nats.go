package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// NATSServer is a nats-server with JetStream that the test started, its storage in a
// temporary directory, on free ports. Stop and Start kill it (by PID) and start it again on
// the same storage, for fault tests; the test's cleanup stops it.
type NATSServer struct {
	// URL is the server's client URL (nats://127.0.0.1:PORT), for the service's -queue flag.
	URL string

	process
	args    []string
	monitor int
}

// NATS starts one nats-server with JetStream (Debian's nats-server package). Without it the
// test skips, or fails under CI.
func NATS(t testing.TB) *NATSServer {
	t.Helper()
	return NATSCluster(t, 1)[0]
}

// NATSCluster starts n nats-servers with JetStream; more than one are routed to each other in
// one cluster. It returns once each answers healthy (JetStream ready).
func NATSCluster(t testing.TB, n int) []*NATSServer {
	t.Helper()
	binary := Need(t, "nats-server", "nats-server")
	servers := make([]*NATSServer, n)
	routes := make([]string, n)
	cluster := make([]int, n)
	for i := range servers {
		port := FreePort(t)
		servers[i] = &NATSServer{process: process{t: t, binary: binary}, URL: fmt.Sprintf("nats://127.0.0.1:%d", port), monitor: FreePort(t)}
		cluster[i] = FreePort(t)
		routes[i] = fmt.Sprintf("nats://127.0.0.1:%d", cluster[i])
		servers[i].args = []string{"-a", "127.0.0.1", "-p", fmt.Sprint(port), "-m", fmt.Sprint(servers[i].monitor), "-js",
			"-n", fmt.Sprintf("n%d", i)}
	}
	for i, s := range servers {
		dir := t.TempDir()
		s.args = append(s.args, "-sd", filepath.Join(dir, "js"))
		if n > 1 {
			s.args = append(s.args, "--cluster_name", "svc", "--cluster", routes[i], "--routes", strings.Join(routes, ","))
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
		s.start()
	}
	for _, s := range servers {
		s.wait()
	}
	return servers
}

// Start starts the server again and waits until it answers healthy, at most 30 s.
func (s *NATSServer) Start() {
	s.t.Helper()
	s.start()
	s.wait()
}

func (s *NATSServer) start() { s.run(s.args...) }

// wait waits until the server's /healthz answers 200 (JetStream ready), at most 30 s.
func (s *NATSServer) wait() {
	s.t.Helper()
	s.waitOK(fmt.Sprintf("http://127.0.0.1:%d/healthz", s.monitor), "nats-server to answer healthy")
}

// Stop kills the server by its PID (SIGKILL) and waits for it to exit. Stopping a stopped
// server does nothing.
func (s *NATSServer) Stop() { s.stop() }
