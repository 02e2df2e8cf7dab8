// Command authenticator shows an fnapi server that checks tokens of its own instead of package
// auth's users, sessions and keys: an interceptor reads the API key the transport took from the
// request (the Svc-Authorization header or the _key argument), finds who it belongs to, and
// either refuses the call or tells the function who calls. Roles work the same way: a function
// registered with registry.Requires(role) is refused to callers without that role.
//
//	FNAPI_TOKENS='ann:admin:s3cret-1,bob:user:s3cret-2' go run ./examples/authenticator
//	curl -k -H 'Svc-Authorization: s3cret-2' https://127.0.0.1:8446/api/whoami   # "bob"
//	curl -k -H 'Svc-Authorization: s3cret-2' https://127.0.0.1:8446/api/purge    # PERMISSION-DENIED
package main

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
)

// Caller is who a token belongs to: the interceptor sets it as the call's identity.
type Caller struct {
	Name string
	Role string
}

// directory holds each token's SHA-256 hash, never the token itself.
type directory struct {
	entries []entry
}

type entry struct {
	hash   [sha256.Size]byte
	caller Caller
}

// parseTokens reads "name:role:token,..." into a directory.
func parseTokens(s string) (*directory, error) {
	d := &directory{}
	for item := range strings.SplitSeq(s, ",") {
		name, rest, ok1 := strings.Cut(strings.TrimSpace(item), ":")
		role, token, ok2 := strings.Cut(rest, ":")
		if !ok1 || !ok2 || name == "" || role == "" || len(token) < 8 {
			return nil, errors.New(`tokens: want "name:role:token,..." with tokens of 8 characters or more`)
		}
		d.entries = append(d.entries, entry{hash: sha256.Sum256([]byte(token)), caller: Caller{Name: name, Role: role}})
	}
	return d, nil
}

// lookup finds the caller a token belongs to, comparing every entry in constant time so that
// the answer's timing tells nothing of which hash came close.
func (d *directory) lookup(token string) (Caller, bool) {
	h := sha256.Sum256([]byte(token))
	var found Caller
	ok := 0
	for _, e := range d.entries {
		if subtle.ConstantTimeCompare(h[:], e.hash[:]) == 1 {
			found, ok = e.caller, 1
		}
	}
	return found, ok == 1
}

// interceptor authenticates every call of a function that is not public, and checks its role.
func (d *directory) interceptor() registry.Interceptor {
	return func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (any, error) {
			if c.Func.Access == decl.Public {
				return next(ctx, c)
			}
			who, ok := d.lookup(c.Credentials.Key)
			if !ok {
				return nil, apierr.New(apierr.AuthenticationNeeded, "path", c.Func.Name)
			}
			if c.Func.Role != "" && c.Func.Role != who.Role {
				return nil, apierr.New(apierr.PermissionDenied, "path", c.Func.Name, "role", c.Func.Role)
			}
			c.Identity = who
			return next(ctx, c)
		}
	}
}

// caller returns who makes the call the context belongs to.
func caller(ctx context.Context) Caller {
	who, _ := registry.CallFrom(ctx).Identity.(Caller)
	return who
}

// newMux registers the functions behind the interceptor and mounts the API under /api.
func newMux(d *directory, logger *zap.Logger) (*http.ServeMux, error) {
	reg := registry.New()
	fnapi.MustRegisterBuiltins(reg)
	reg.MustRegister("whoami", func(ctx context.Context) string { return caller(ctx).Name },
		registry.ReadOnly(), registry.Describe("Says who the caller is."))
	reg.MustRegister("purge", func(ctx context.Context) string { return "purged by " + caller(ctx).Name },
		registry.Requires("admin"), registry.Describe("Something only an administrator may do."))
	api, err := fnapi.New(reg, fnapi.WithLogger(logger), fnapi.WithInterceptors(d.interceptor()))
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", api))
	return mux, nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8446", "address to serve HTTPS on")
	data := flag.String("data", "./data", "directory for the generated TLS certificate")
	flag.Parse()
	d, err := parseTokens(os.Getenv("FNAPI_TOKENS"))
	if err != nil {
		log.Fatal(fmt.Errorf("FNAPI_TOKENS: %w", err))
	}
	logger, _ := zap.NewProduction()
	defer func() { _ = logger.Sync() }()
	mux, err := newMux(d, logger)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := &fnapi.Server{Addr: *addr, Handler: mux, DataDir: *data, Logger: logger}
	if err := srv.ListenAndServe(ctx); err != nil {
		log.Fatal(err)
	}
}
