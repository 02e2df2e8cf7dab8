package auth

import (
	"strings"
	"testing"
)

func TestPassword(t *testing.T) {
	t.Parallel()
	p := Argon2{Memory: 64, Iterations: 1, Parallelism: 1}
	enc, err := p.hashPassword("hunter2 hunter2")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(enc, "hunter2") || !strings.HasPrefix(enc, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("encoded %q", enc)
	}
	tests := []struct {
		password string
		ok       bool
	}{{"hunter2 hunter2", true}, {"hunter2 hunter3", false}, {"", false}}
	for _, tt := range tests {
		t.Run(tt.password, func(t *testing.T) {
			ok, params, err := checkPassword(enc, tt.password)
			if err != nil || ok != tt.ok || params != p {
				t.Fatalf("checkPassword = %v, %+v, %v", ok, params, err)
			}
		})
	}
	again, _ := p.hashPassword("hunter2 hunter2")
	if again == enc {
		t.Fatal("two hashes of one password are equal: no salt")
	}
}

func TestParseHashRefuses(t *testing.T) {
	t.Parallel()
	for _, enc := range []string{
		"",
		"$argon2i$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=18$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=99999999,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA", // gigabytes
		"$argon2id$v=19$m=64,t=0,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=64,t=1,p=300$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=64,t=1,p=1,x=2$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=64,t=1,p=1$!!$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaA",
	} {
		if _, err := parseHash(enc); err == nil {
			t.Errorf("parseHash(%q) accepted", enc)
		}
	}
}

func FuzzParseHash(f *testing.F) {
	enc, _ := Argon2{Memory: 64, Iterations: 1, Parallelism: 1}.hashPassword("x")
	f.Add(enc)
	f.Add("$argon2id$v=19$m=64,t=1,p=1$$")
	f.Fuzz(func(t *testing.T, enc string) {
		h, err := parseHash(enc)
		if err != nil {
			return
		}
		p := h.params
		if p.Memory > 1<<21 || p.Iterations > 64 || p.Parallelism == 0 || len(h.sum) < 16 {
			t.Fatalf("accepted a hash no server should check: %+v", p)
		}
	})
}
