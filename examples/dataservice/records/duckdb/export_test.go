package records

import "database/sql"

// DB gives the tests the database behind s, to read the table directly.
func (s *DuckDB) DB() *sql.DB { return s.db }
