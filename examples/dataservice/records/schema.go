package records

// Schema is the DuckDB table that holds the collected traffic records, one row per conversation
// and time slice. Addresses are kept as 128-bit numbers split in two halves (an IPv4 address is
// stored as its IPv4-mapped IPv6 form ::ffff:a.b.c.d) so that CIDR filters are range comparisons
// and keys sort by address; the query engine turns them back into text. protocol is the IP
// protocol number (1 icmp, 6 tcp, 17 udp, ...). bytes and packets are what that side sent.
// exporter_hi and exporter_lo hold the exporter's address in the same form, NULL for a record
// without one; in_if and out_if are interface indexes, 0 when unknown.
const Schema = `CREATE TABLE IF NOT EXISTS records (
	time           BIGINT    NOT NULL,
	protocol       UTINYINT  NOT NULL,
	application    VARCHAR   NOT NULL,
	client_ip_hi   UBIGINT   NOT NULL,
	client_ip_lo   UBIGINT   NOT NULL,
	client_port    USMALLINT NOT NULL,
	client_bytes   UBIGINT   NOT NULL,
	client_packets UBIGINT   NOT NULL,
	server_ip_hi   UBIGINT   NOT NULL,
	server_ip_lo   UBIGINT   NOT NULL,
	server_port    USMALLINT NOT NULL,
	server_bytes   UBIGINT   NOT NULL,
	server_packets UBIGINT   NOT NULL,
	exporter_hi    UBIGINT,
	exporter_lo    UBIGINT,
	in_if          UINTEGER  NOT NULL DEFAULT 0,
	out_if         UINTEGER  NOT NULL DEFAULT 0
)`

// migrations bring a records table created by an earlier version up to Schema, in order; each
// is harmless when already applied. DuckDB cannot add a column with a NOT NULL constraint, so
// the interface columns of a migrated table only have their default.
var migrations = []string{
	`ALTER TABLE records ADD COLUMN IF NOT EXISTS exporter_hi UBIGINT`,
	`ALTER TABLE records ADD COLUMN IF NOT EXISTS exporter_lo UBIGINT`,
	`ALTER TABLE records ADD COLUMN IF NOT EXISTS in_if UINTEGER DEFAULT 0`,
	`ALTER TABLE records ADD COLUMN IF NOT EXISTS out_if UINTEGER DEFAULT 0`,
}
