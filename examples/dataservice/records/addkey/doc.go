// Package addkey holds the test that adds a query key over a new column in a test build, as
// the tour of package records says a key is added (records.AddColumn, pvql.AddKey): the column
// is written, added to a store of the columns before by each engine's migration, and queried.
// It is a package of its own since adding a column changes the process's records table, which
// no other test may share.
package addkey
