package testenv_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/internal/testenv"
)

// chQuery runs q on s over its HTTP interface and returns the answer, or "" when it is down.
func chQuery(s *testenv.ClickHouseServer, q string) string {
	resp, err := http.Post(fmt.Sprintf("http://127.0.0.1:%d/", s.HTTPPort), "text/plain", strings.NewReader(q))
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return strings.TrimSpace(string(b))
}

// TestClickHouseCluster starts two servers: each knows the cluster's two shards, keeps its
// data across Stop and Start, and is down in between.
func TestClickHouseCluster(t *testing.T) {
	servers := testenv.ClickHouseCluster(t, 2)
	q := "SELECT count() FROM system.clusters WHERE cluster = '" + testenv.ClickHouseClusterName + "'"
	for i, s := range servers {
		if got := chQuery(s, q); got != "2" {
			t.Errorf("server %d lists %q shards, want 2", i+1, got)
		}
	}
	s := servers[1]
	if got := chQuery(s, "CREATE TABLE kept (x UInt8) ENGINE = TinyLog"); got != "" {
		t.Fatalf("create: %q", got)
	}
	s.Stop()
	if got := chQuery(s, "SELECT 1"); got != "" {
		t.Fatalf("a stopped server answered %q", got)
	}
	s.Start()
	if got := chQuery(s, "EXISTS TABLE kept"); got != "1" {
		t.Fatalf("after a restart, EXISTS TABLE kept = %q", got)
	}
}
