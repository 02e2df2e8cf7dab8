package duckdb

import "database/sql"

// DB gives the tests the database behind s, to read the table directly.
func (s *Store) DB() *sql.DB { return s.db }
