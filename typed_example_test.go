package fnapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
)

// Declared once, in a package that the server and its Go clients both import.

type GreetArgs struct {
	Name  string `json:"name"`
	Times int    `json:"times,omitempty" default:"1" jsonschema:"minimum=1,maximum=5"`
}

var NotWelcome = apierr.Declare("NOT-WELCOME", http.StatusForbidden, "The caller is not welcome.",
	apierr.Attr("name", "who is not welcome").Typed("string"))

var Greet = decl.Func[GreetArgs, string]("greet",
	decl.Since("1.1"), decl.Requires(decl.Public), decl.Errors(NotWelcome))

func Example_declared() {
	// The server implements the declaration: a function of another signature does not compile.
	reg := registry.New()
	registry.MustImplement(reg, Greet, func(ctx context.Context, in GreetArgs) (string, error) {
		if in.Name == "Mallory" {
			return "", apierr.New(NotWelcome, "name", in.Name)
		}
		return strings.TrimSpace(strings.Repeat("Hello, "+in.Name+"! ", in.Times)), nil
	})
	api, _ := fnapi.New(reg)
	srv := httptest.NewTLSServer(http.StripPrefix("/api", api))
	defer srv.Close()

	// The client calls it, over HTTPS here (client.DialWS for a WebSocket): the arguments and
	// the result are checked by the compiler too.
	ctx := context.Background()
	c, _ := client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()), client.WithDeclaredVersions())
	s, err := client.Call(ctx, c, Greet, GreetArgs{Name: "Ann", Times: 2}) // s is a string
	fmt.Println(s, err)
	_, err = client.Call(ctx, c, Greet, GreetArgs{Name: "Mallory"})
	fmt.Println(errors.Is(err, NotWelcome), err)
	// Output:
	// Hello, Ann! Hello, Ann! <nil>
	// true NOT-WELCOME name=Mallory
}
