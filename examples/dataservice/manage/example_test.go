package manage_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/manage"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
	"github.com/fnapi/fnapi/examples/dataservice/wire"
	"github.com/fnapi/fnapi/registry"
)

func ExampleParseDuration() {
	for _, s := range []string{"90s", "2h", "30d", "1h30m"} {
		d, err := wire.ParseDuration(s)
		fmt.Println(s, d, err != nil)
	}
	fmt.Println(wire.FormatDuration(48 * time.Hour))
	// Output:
	// 90s 1m30s false
	// 2h 2h0m0s false
	// 30d 720h0m0s false
	// 1h30m 0s true
	// 2d
}

// The application opens the store, reads the settings, applies them now and on every change,
// and registers the functions.
func ExampleRegister() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "data")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	st, err := statedb.OpenSQLite(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	settings, err := manage.NewSettings(ctx, st, manage.WithDefault(manage.KeySessionIdle, "2h"))
	if err != nil {
		log.Fatal(err)
	}
	settings.Watch(func(c manage.Config) {
		// Here the app gives c.SessionIdle and c.SessionMax to its authenticator, and
		// c.Retention to its records store.
		fmt.Println("session idle", c.SessionIdle, "retention", c.Retention)
	})
	reg := registry.New()
	if err := manage.Register(reg, st, settings); err != nil {
		log.Fatal(err)
	}
	// Output:
	// session idle 2h0m0s retention 720h0m0s
}
