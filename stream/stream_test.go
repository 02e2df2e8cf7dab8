package stream_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/fnapi/fnapi/internal/streamlink"
	"github.com/fnapi/fnapi/stream"
)

type sliceSink struct{ got []any }

func (s *sliceSink) Send(_ context.Context, c any) error { s.got = append(s.got, c); return nil }

func TestSender(t *testing.T) {
	t.Parallel()
	var s stream.Sender[int]
	if err := s.Send(1); !errors.Is(err, stream.ErrUnbound) {
		t.Fatalf("unbound Send = %v, want ErrUnbound", err)
	}
	sink := &sliceSink{}
	ctx, cancel := context.WithCancel(context.Background())
	streamlink.Bind(&s, ctx, sink)
	if err := s.Send(7); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := s.Send(8); !errors.Is(err, context.Canceled) {
		t.Fatalf("Send after cancel = %v, want context.Canceled", err)
	}
	if !reflect.DeepEqual(sink.got, []any{7}) {
		t.Fatalf("sink got %v", sink.got)
	}
	if got := streamlink.ChunkType(&s); got != reflect.TypeFor[int]() {
		t.Fatalf("ChunkType = %v", got)
	}
}

func TestAccumulators(t *testing.T) {
	t.Parallel()
	chunks := []int{3, 1, 2}
	tests := []struct {
		name string
		acc  stream.Accumulator
		none any
		want any
	}{
		{"append", stream.Append[int](), []int{}, []int{3, 1, 2}},
		{"append of", stream.AppendOf(reflect.TypeFor[int]()), []int{}, []int{3, 1, 2}},
		{"last", stream.Last[int](), 0, 2},
		{"func", stream.Func(func(sum, c int) int { return sum + c }), 0, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.acc.Check(reflect.TypeFor[int]()); err != nil {
				t.Fatal(err)
			}
			if err := tt.acc.Check(reflect.TypeFor[string]()); err == nil {
				t.Fatal("Check accepted the wrong chunk type")
			}
			if got := streamlink.Start(tt.acc).Result(); !reflect.DeepEqual(got, tt.none) {
				t.Errorf("no chunks: %#v, want %#v", got, tt.none)
			}
			st := streamlink.Start(tt.acc)
			for _, c := range chunks {
				st.Add(c)
			}
			if got := st.Result(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("result %#v, want %#v", got, tt.want)
			}
		})
	}
	if err := (stream.Accumulator{}).Check(reflect.TypeFor[int]()); err == nil {
		t.Error("zero Accumulator passed Check")
	}
}
