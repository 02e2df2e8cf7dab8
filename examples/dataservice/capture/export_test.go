package capture

// NoHTTP stops t from decoding HTTP: the benchmarks' transport alone.
func NoHTTP(t *Table) { t.httpT.off = true }
