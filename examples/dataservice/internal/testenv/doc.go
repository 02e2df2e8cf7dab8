// Package testenv starts the real servers and tools that the data service's tests need
// (ClickHouse, PostgreSQL, haproxy, flow exporters) from the binaries Debian installs, on free
// ports in temporary directories, and stops them by their process IDs when the test ends.
//
// ClickHouse starts one clickhouse-server and ClickHouseCluster several sharing a
// remote_servers entry (ClickHouseClusterName), each from a small config in the test's
// temporary directory; a ClickHouseServer's URL is the service's -clickhouse flag, and Stop
// (SIGKILL by PID) and Start restart it on the same data for fault tests.
//
// Softflowd (NetFlow v5, v9 and IPFIX) and Pmacctd (sFlow v5) replay a capture to a collector
// as real exporters do; WritePcap writes the capture, and Conversation one of a TCP
// conversation.
//
// A test whose binary is missing skips with a message naming the package to install, except when
// the environment has CI=true: there .ci/run has installed everything, and a missing binary is a
// failure, never a quiet skip.
package testenv
