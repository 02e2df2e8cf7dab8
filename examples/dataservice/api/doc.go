// Package api declares the data service's own functions for Go clients: their names, argument
// and result types, versions, access and error codes, with package decl. The service
// implements each declaration (registry.Implement), and a Go program calls it with
// client.Call and client.Stream, so that a changed argument breaks the build of every caller
// instead of a call:
//
//	c, _ := client.New("https://127.0.0.1:8443/api", client.WithAPIKey(key), client.WithDeclaredVersions())
//	d, err := client.Call(ctx, c, api.CreateDashboard, api.CreateDashboardArgs{Title: "Edge"})
//	for chunk, err := range client.Stream(ctx, c, api.Query, api.QueryArgs{Expr: "traffic BY server.ip TOP 5"}) {
//		...  // chunk.Result replaces the previous chunk's
//	}
//
// The package imports only fnapi's decl, apierr, version and auth/authapi and the standard
// library: a client that imports it pulls neither the server, nor DuckDB, nor SQLite. The
// identity functions of fnapi's auth package that the service also serves (login,
// create-api-key, list-users, ...) are declared in package authapi; SetRole here is authapi's
// set-role as the service serves it, from 1.2. The built-ins (echo, doc, get-api-version,
// cancel) are called with the dynamic client.
//
// Optional arguments are pointers or say omitempty, so that a typed call that leaves them
// out sends nothing and gets the documented default.
package api
