package main

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/client"
	"github.com/fnapi/fnapi/examples/typed/notes"
	"go.uber.org/zap"
)

// TestTyped calls the server with the declarations, over HTTPS and over a WebSocket.
func TestTyped(t *testing.T) {
	t.Parallel()
	mux, err := newMux(zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(mux)
	defer srv.Close()
	ctx := context.Background()
	c, _ := client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()), client.WithDeclaredVersions())

	n, err := client.Call(ctx, c, notes.Add, notes.AddArgs{Text: "buy milk"})
	if err != nil || n.ID != 1 || n.Text != "buy milk" {
		t.Fatalf("add = %+v, %v", n, err)
	}
	_, err = client.Call(ctx, c, notes.Add, notes.AddArgs{Text: strings.Repeat("x", notes.MaxText+1)})
	var e *apierr.Error
	if !errors.Is(err, notes.TooLong) || !errors.As(err, &e) || e.Attr("limit") != float64(notes.MaxText) {
		t.Fatalf("a long note: %v", err)
	}
	_, err = client.Call(ctx, c, notes.Add, notes.AddArgs{})
	if !errors.Is(err, apierr.InvalidArgument) {
		t.Fatalf("an empty note: %v", err)
	}

	ws, err := client.DialWS(ctx, "wss"+strings.TrimPrefix(srv.URL, "https")+"/api/ws",
		client.WithHTTPClient(srv.Client()), client.WithDeclaredVersions())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := client.Call(ctx, ws, notes.Add, notes.AddArgs{Text: "call mum"}); err != nil {
		t.Fatal(err)
	}
	all, err := client.Call(ctx, ws, notes.List, notes.ListArgs{Contains: "mu"})
	if err != nil || len(all) != 1 || all[0].Text != "call mum" || all[0].ID != 2 {
		t.Fatalf("list = %+v, %v", all, err)
	}

	// list-notes appeared in 1.1: a client pinned to 1.0 does not find it.
	v10, _ := client.New(srv.URL+"/api", client.WithHTTPClient(srv.Client()), client.WithVersion("1.0"))
	if err := v10.Call(ctx, "list-notes", nil, nil); !errors.Is(err, apierr.UnknownFunction) {
		t.Fatalf("list-notes at 1.0: %v", err)
	}
}

// TestBounded checks that the server keeps at most maxNotes notes, dropping the oldest.
func TestBounded(t *testing.T) {
	t.Parallel()
	b := &book{}
	ctx := context.Background()
	for range maxNotes + 5 {
		if _, err := b.add(ctx, notes.AddArgs{Text: "n"}); err != nil {
			t.Fatal(err)
		}
	}
	all, _ := b.list(ctx, notes.ListArgs{})
	if len(all) != maxNotes || all[0].ID != 6 {
		t.Fatalf("kept %d notes, the first %d", len(all), all[0].ID)
	}
}
