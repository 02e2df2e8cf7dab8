package queue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/fnapi/fnapi/examples/dataservice/records"
)

// The names DESIGN.md fixes, and the subjects of the stream.
const (
	// Stream is the JetStream stream that carries the records.
	Stream = "SVC_RECORDS"
	// Durable is the consumer every consuming node shares.
	Durable = "svc-store"
	// Subject carries the batches; DeadSubject the batches the store refused for their content.
	Subject     = "svc.records.batch"
	DeadSubject = "svc.records.dead"
)

// Defaults of Config.
const (
	// DefaultMaxBytes bounds the stream: when it holds this much, publishing fails (discard
	// new) and the collectors count what they drop, as without a queue.
	DefaultMaxBytes = 10 << 30
	// DefaultMaxAge is how long a batch waits in the stream at most: past it, a batch no
	// consumer stored is dropped.
	DefaultMaxAge = 7 * 24 * time.Hour
	// DefaultMaxInFlight bounds the bytes a node's publishing holds waiting for JetStream's
	// acknowledgements; past it, Ingest fails at once.
	DefaultMaxInFlight = 64 << 20
	// Duplicates is the stream's window in which a batch published again under its id
	// (Nats-Msg-Id) is dropped by JetStream.
	Duplicates = 2 * time.Minute
	// DefaultAckWait is how long a consumer has to acknowledge a batch before it is delivered
	// again; a consumer storing a batch tells JetStream it is in progress every AckWait/3.
	DefaultAckWait = 10 * time.Second
	// PublishTimeout bounds an Ingest whose context has no deadline.
	PublishTimeout = 10 * time.Second
)

// Config is the queue's configuration.
type Config struct {
	// URLs is the -queue flag: nats://HOST:PORT[,HOST:PORT...].
	URLs string
	// Consume is the -consume flag: Open fails at once when no server can be reached.
	Consume bool
	// MaxBytes bounds the stream when this node creates it (DefaultMaxBytes when 0); a stream
	// that exists keeps its own.
	MaxBytes int64
	// MaxAge bounds the age of the stream's batches when this node creates it (DefaultMaxAge
	// when 0).
	MaxAge time.Duration
	// MaxInFlight bounds the bytes of unacknowledged publishing (DefaultMaxInFlight when 0).
	MaxInFlight int64
	// AckWait is how long a consumer has to acknowledge a batch before JetStream delivers it
	// to another (DefaultAckWait when 0); set by the consuming node that creates or updates
	// the consumer.
	AckWait time.Duration
	// Log receives the queue's connection changes and failures.
	Log *zap.Logger
}

// Queue is a node's connection to the stream: Ingest publishes, Consume stores. It is safe for
// concurrent use.
type Queue struct {
	cfg Config
	nc  *nats.Conn
	js  jetstream.JetStream

	// mu guards stream, the stream once known to exist, and problem, why it is not.
	mu      sync.Mutex
	stream  jetstream.Stream
	problem error

	inFlight    atomic.Int64
	published   atomic.Uint64 // records
	refused     atomic.Uint64 // records of failed publishing
	redelivered atomic.Uint64 // batches this node's consumer was given again
	stored      atomic.Uint64 // records this node's consumer stored
	dead        atomic.Uint64 // batches this node's consumer dead-lettered
	// opened is closed when Open returns: the connection's handlers wait for it.
	opened chan struct{}
	// life ends when Close is called: a batch being stored then is abandoned, as in a crash.
	life context.Context
	end  context.CancelFunc
}

// ensureStreamOpened is ensureStream once Open returned, unless it failed.
func (q *Queue) ensureStreamOpened() {
	<-q.opened
	if q.js != nil {
		_ = q.ensureStream(context.Background())
	}
}

// Open connects to the NATS servers of cfg.URLs. With cfg.Consume it fails when none answers;
// otherwise it keeps trying in the background, and Ready says why it is not ready meanwhile.
// It creates the stream when missing.
func Open(ctx context.Context, cfg Config) (*Queue, error) {
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.MaxAge == 0 {
		cfg.MaxAge = DefaultMaxAge
	}
	if cfg.AckWait == 0 {
		cfg.AckWait = DefaultAckWait
	}
	if cfg.MaxInFlight == 0 {
		cfg.MaxInFlight = DefaultMaxInFlight
	}
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	urls, err := parseURLs(cfg.URLs)
	if err != nil {
		return nil, err
	}
	q := &Queue{cfg: cfg, problem: errors.New("not connected yet"), opened: make(chan struct{})}
	defer close(q.opened)
	q.life, q.end = context.WithCancel(context.Background())
	opts := []nats.Option{
		nats.Name("dataservice"), nats.MaxReconnects(-1), nats.ReconnectWait(time.Second),
		// Publishing while disconnected fails at once instead of filling a buffer.
		nats.ReconnectBufSize(-1),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			q.setProblem(fmt.Errorf("disconnected: %v", err))
			cfg.Log.Warn("queue: NATS disconnected", zap.Error(err))
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			cfg.Log.Info("queue: NATS reconnected", zap.String("server", nc.ConnectedUrlRedacted()))
			go q.ensureStreamOpened()
		}),
		nats.ConnectHandler(func(nc *nats.Conn) {
			cfg.Log.Info("queue: NATS connected", zap.String("server", nc.ConnectedUrlRedacted()))
			go q.ensureStreamOpened()
		}),
	}
	if !cfg.Consume {
		opts = append(opts, nats.RetryOnFailedConnect(true))
	}
	q.nc, err = nats.Connect(strings.Join(urls, ","), opts...)
	if err != nil {
		q.end()
		return nil, fmt.Errorf("queue: NATS %s cannot be reached: %w", cfg.URLs, err)
	}
	js, err := jetstream.New(q.nc, jetstream.WithPublishAsyncTimeout(PublishTimeout))
	if err != nil {
		q.nc.Close()
		return nil, fmt.Errorf("queue: %w", err)
	}
	q.js = js
	if q.nc.IsConnected() {
		if err := q.ensureStream(ctx); err != nil && cfg.Consume {
			q.nc.Close()
			return nil, err
		}
	}
	return q, nil
}

// parseURLs returns the server URLs of flag, each nats://HOST:PORT.
func parseURLs(flag string) ([]string, error) {
	var urls []string
	for u := range strings.SplitSeq(flag, ",") {
		u = strings.TrimSpace(u)
		if u == "" {
			continue
		}
		if !strings.Contains(u, "://") {
			u = "nats://" + u
		}
		if !strings.HasPrefix(u, "nats://") {
			return nil, fmt.Errorf("queue: %q is not nats://HOST:PORT", u)
		}
		urls = append(urls, u)
	}
	if len(urls) == 0 {
		return nil, errors.New("queue: no NATS server named: want nats://HOST:PORT[,HOST:PORT...]")
	}
	return urls, nil
}

func (q *Queue) setProblem(err error) {
	q.mu.Lock()
	q.problem = err
	if err != nil {
		q.stream = nil
	}
	q.mu.Unlock()
}

// ensureStream finds the stream, creating it when missing: file storage, work-queue retention
// (a batch leaves once stored), discard new when full, replicas as many as the cluster allows
// up to 3.
func (q *Queue) ensureStream(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	s, err := q.js.Stream(ctx, Stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		for replicas := 3; replicas >= 1; replicas-- {
			s, err = q.js.CreateStream(ctx, jetstream.StreamConfig{
				Name: Stream, Subjects: []string{Subject, DeadSubject}, Storage: jetstream.FileStorage,
				Retention: jetstream.WorkQueuePolicy, Discard: jetstream.DiscardNew, Replicas: replicas,
				MaxBytes: q.cfg.MaxBytes, MaxAge: q.cfg.MaxAge, Duplicates: Duplicates,
			})
			if err == nil || errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				s, err = q.js.Stream(ctx, Stream)
				break
			}
		}
	}
	if err != nil {
		err = fmt.Errorf("stream %s: %w", Stream, err)
		q.setProblem(err)
		q.cfg.Log.Warn("queue: NATS stream not ready", zap.Error(err))
		return fmt.Errorf("queue: %w", err)
	}
	q.mu.Lock()
	q.stream, q.problem = s, nil
	q.mu.Unlock()
	return nil
}

// Ready returns nil when the node is connected and the stream exists, else why not; it names
// the queue.
func (q *Queue) Ready() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.problem != nil {
		return fmt.Errorf("queue %s: %w", q.cfg.URLs, q.problem)
	}
	if !q.nc.IsConnected() {
		return fmt.Errorf("queue %s: not connected", q.cfg.URLs)
	}
	return nil
}

// streamOf returns the stream, or why there is none.
func (q *Queue) streamOf(ctx context.Context) (jetstream.Stream, error) {
	q.mu.Lock()
	s := q.stream
	q.mu.Unlock()
	if s != nil {
		return s, nil
	}
	if !q.nc.IsConnected() {
		return nil, q.Ready()
	}
	if err := q.ensureStream(ctx); err != nil {
		return nil, err
	}
	return q.streamOf(ctx)
}

// Close closes the connection; a batch being stored is abandoned, left to be delivered again.
// To stop consuming cleanly, end Consume's context and wait for it first.
func (q *Queue) Close() error {
	q.end()
	q.nc.Close()
	return nil
}

// unavailable wraps err as records.ErrUnavailable: the batch may be published again later.
func unavailable(err error) error {
	return fmt.Errorf("queue: %w: %w", records.ErrUnavailable, err)
}
