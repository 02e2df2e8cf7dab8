package alerts_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fnapi/fnapi/examples/dataservice/alerts"
	"github.com/fnapi/fnapi/examples/dataservice/pvql"
	"github.com/fnapi/fnapi/examples/dataservice/records"
	"github.com/fnapi/fnapi/examples/dataservice/records/duckdb"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
)

// env is a real alert service: records in DuckDB, answered by the query engine, rules and
// their state in SQLite.
type env struct {
	svc     *alerts.Service
	ev      *alerts.Evaluator
	st      *statedb.Alerts
	records records.Store
}

// newEnv answers rule queries incrementally (pvql's live answers over DuckDB's changes), as
// the service does on DuckDB.
func newEnv(t *testing.T, o alerts.Options) *env { return openEnv(t, o, true) }

// newFullEnv answers each evaluation in full, as the service does on ClickHouse.
func newFullEnv(t *testing.T, o alerts.Options) *env { return openEnv(t, o, false) }

func openEnv(t testing.TB, o alerts.Options, live bool) *env {
	t.Helper()
	recs, err := duckdb.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { recs.Close() })
	return envOver(t, recs, o, live)
}

// envOver is an alert service over the records of recs, with its own state store.
func envOver(t testing.TB, recs *duckdb.Store, o alerts.Options, live bool) *env {
	t.Helper()
	return envEach(t, recs, o, live, true)
}

// envEach is envOver answering the queries of one family together (Options.Each) when each
// is set, else one by one.
func envEach(t testing.TB, recs *duckdb.Store, o alerts.Options, live, each bool) *env {
	t.Helper()
	ctx := context.Background()
	db, err := statedb.OpenSQLite(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st, err := statedb.OpenAlerts(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	engine := pvql.New(recs)
	o.Query = func(ctx context.Context, expr string, now time.Time) ([]pvql.Result, error) {
		return engine.Query(ctx, expr, now, time.Hour)
	}
	o.Each = nil
	if each {
		o.Each = eachOf(engine)
	}
	if live {
		o.Live = func(_ context.Context, expr string) (alerts.Standing, error) {
			l, err := engine.Live(expr, recs.Changes())
			if err != nil {
				return nil, err
			}
			return standing{l}, nil
		}
	}
	svc, err := alerts.New(st, o)
	if err != nil {
		t.Fatal(err)
	}
	ev := svc.NewEvaluator()
	t.Cleanup(ev.Close) // its standing answers follow the store's changes
	return &env{svc: svc, ev: ev, st: st, records: recs}
}

// eachOf answers the queries of one family together, as package app does.
func eachOf(engine *pvql.Engine) func(ctx context.Context, exprs []string, now time.Time) ([]pvql.Result, error) {
	return func(ctx context.Context, exprs []string, now time.Time) ([]pvql.Result, error) {
		var sts []*pvql.Statement
		for _, x := range exprs {
			st, err := pvql.Parse(x)
			if err != nil {
				return nil, err
			}
			sts = append(sts, st...)
		}
		return engine.AnswerEach(ctx, sts, now, time.Hour)
	}
}

// traffic ingests one record from 10.9.9.9 to server at t carrying bytes.
func (e *env) traffic(t *testing.T, at int64, server string, bytes int) {
	t.Helper()
	e.flow(t, at, "10.9.9.9", server, bytes)
}

// flow ingests one record from client to server at t carrying bytes.
func (e *env) flow(t *testing.T, at int64, client, server string, bytes int) {
	t.Helper()
	raw := `{"time": ` + strconv.FormatInt(at, 10) + `, "protocol": "tcp", "client": {"ip": "` + client + `", "port": 50000, "bytes": 0},
		"server": {"ip": "` + server + `", "port": 443, "bytes": ` + strconv.Itoa(bytes) + `}}`
	r, err := records.ParseRecord(json.RawMessage(raw), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := e.records.Ingest(context.Background(), []records.Record{r}); err != nil {
		t.Fatal(err)
	}
}

func (e *env) rule(t *testing.T, r state.AlertRule) state.AlertRule {
	t.Helper()
	if r.Interval == 0 {
		r.Interval = 10 * time.Second
	}
	r, err := e.st.CreateRule(context.Background(), r, 100)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (e *env) tick(t *testing.T, now time.Time) {
	t.Helper()
	if err := e.ev.Tick(context.Background(), now); err != nil {
		t.Fatal(err)
	}
}

func (e *env) states(t *testing.T, rule string) []string {
	t.Helper()
	hs, err := e.st.History(context.Background(), state.AlertQuery{Rule: rule})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := len(hs) - 1; i >= 0; i-- {
		out = append(out, hs[i].State+" "+hs[i].Group+" "+string(hs[i].Values))
	}
	return out
}

// receiver is a real HTTPS webhook receiver that checks signatures and answers the codes
// given in turn (then 200).
type receiver struct {
	srv    *httptest.Server
	secret string
	mu     sync.Mutex
	codes  []int
	got    []delivered // acknowledged (2xx) bodies
	tries  int
	ids    []string // the delivery header of each try
	bad    []string // signature failures
}

type delivered struct {
	Rule struct {
		ID, Name, Severity string
		Labels             map[string]string
	}
	State  string
	Group  json.RawMessage
	Values []*float64
	Since  time.Time
	At     time.Time
	// received is when the receiver acknowledged it.
	received time.Time
}

func newReceiver(t testing.TB, secret string, codes ...int) *receiver {
	r := &receiver{secret: secret, codes: codes}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tries++
	r.ids = append(r.ids, req.Header.Get(alerts.DeliveryHeader))
	sig := req.Header.Get(alerts.SignatureHeader)
	ts, mac, _ := strings.Cut(strings.TrimPrefix(sig, "t="), ",v1=")
	m := hmac.New(sha256.New, []byte(r.secret))
	m.Write([]byte(ts + "." + string(body)))
	if want := hex.EncodeToString(m.Sum(nil)); !hmac.Equal([]byte(want), []byte(mac)) {
		r.bad = append(r.bad, sig)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if len(r.codes) > 0 {
		c := r.codes[0]
		r.codes = r.codes[1:]
		if c/100 != 2 {
			w.WriteHeader(c)
			return
		}
	}
	var d delivered
	if err := json.Unmarshal(body, &d); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	d.received = time.Now()
	r.got = append(r.got, d)
}

func (r *receiver) deliveries() (got []delivered, tries int, bad []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivered(nil), r.got...), r.tries, append([]string(nil), r.bad...)
}

// deliveryIDs returns the delivery header of each try, in order.
func (r *receiver) deliveryIDs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.ids...)
}

// options lets webhooks reach the receivers of the test (on loopback) and trusts their
// certificate.
func (r *receiver) options() alerts.Options {
	roots := r.srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	return alerts.Options{WebhookAllow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, WebhookRoots: roots,
		Backoff: time.Millisecond}
}

func notify(t testing.TB, cs ...alerts.Channel) json.RawMessage {
	b, err := json.Marshal(cs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type standing struct{ *pvql.Live }

func (s standing) Answer(ctx context.Context, now time.Time) ([]pvql.Result, error) {
	return s.Live.Answer(ctx, now, time.Hour)
}
