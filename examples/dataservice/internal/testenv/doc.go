// Package testenv starts the real servers and tools that the data service's tests need
// (ClickHouse, PostgreSQL, haproxy, flow exporters) from the binaries Debian installs, on free
// ports in temporary directories, and stops them by their process IDs when the test ends.
//
// A test whose binary is missing skips with a message naming the package to install, except when
// the environment has CI=true: there .ci/run has installed everything, and a missing binary is a
// failure, never a quiet skip.
package testenv
