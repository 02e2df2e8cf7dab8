package load

import "testing"

func TestResponseID(t *testing.T) {
	tests := []struct {
		msg string
		id  uint64
		ok  bool
	}{
		{`{"type":"result","result":{"a":1,"b":"x"},"id":"17"}`, 17, true},
		{`{"jsonrpc":"2.0","id":5,"result":{"a":1,"b":"x"}}`, 5, true},
		{`{"id": "0"}`, 0, true},
		{`{"type":"result"}`, 0, false},
		{`{"id":"12`, 0, false},
		{`{"id":"x"}`, 0, false},
		{`{"id":null}`, 0, false},
		{`{"id":12345678901234567890123}`, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			id, ok := responseID([]byte(tt.msg))
			if id != tt.id || ok != tt.ok {
				t.Errorf("responseID(%s) = %d, %v; want %d, %v", tt.msg, id, ok, tt.id, tt.ok)
			}
		})
	}
}

func FuzzResponseID(f *testing.F) {
	f.Add([]byte(`{"type":"result","result":{},"id":"17"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":5,"result":{}}`))
	f.Fuzz(func(t *testing.T, msg []byte) {
		_, _ = responseID(msg) // must not panic
	})
}
