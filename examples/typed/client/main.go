// Command client calls the typed example's server with the declarations of package notes: the
// arguments it sends and the results it reads are Go types the compiler checks.
//
//	go run ./examples/typed/client -url https://127.0.0.1:8444/api -insecure add "buy milk"
//	go run ./examples/typed/client -url https://127.0.0.1:8444/api -insecure list milk
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"

	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/typed/notes"
)

func main() {
	url := flag.String("url", "https://127.0.0.1:8444/api", "the server's API root")
	insecure := flag.Bool("insecure", false, "skip verifying the server's certificate (test installations only)")
	flag.Parse()
	hc := &http.Client{}
	if *insecure {
		hc.Transport = &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	}
	c, err := client.New(*url, client.WithHTTPClient(hc), client.WithDeclaredVersions())
	if err != nil {
		log.Fatal(err)
	}
	if err := run(context.Background(), c, flag.Args(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run carries out one command: "add TEXT" or "list [WORD]".
func run(ctx context.Context, c client.Caller, args []string, w io.Writer) error {
	switch {
	case len(args) == 2 && args[0] == "add":
		n, err := client.Call(ctx, c, notes.Add, notes.AddArgs{Text: args[1]})
		if errors.Is(err, notes.TooLong) {
			return fmt.Errorf("a note holds at most %d bytes", notes.MaxText)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "added note %d\n", n.ID)
		return nil
	case len(args) >= 1 && len(args) <= 2 && args[0] == "list":
		in := notes.ListArgs{}
		if len(args) == 2 {
			in.Contains = args[1]
		}
		all, err := client.Call(ctx, c, notes.List, in)
		if err != nil {
			return err
		}
		for _, n := range all {
			fmt.Fprintf(w, "%d\t%s\n", n.ID, n.Text)
		}
		return nil
	}
	return errors.New(`usage: client [-url URL] [-insecure] add TEXT | list [WORD]`)
}
