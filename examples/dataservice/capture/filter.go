package capture

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/bpf"
)

// ErrNoTcpdump is returned by CompileFilter when tcpdump is not installed.
var ErrNoTcpdump = errors.New("capture: a filter needs tcpdump (apt-get install tcpdump)")

// Filter is a compiled classic BPF program.
type Filter struct {
	raw []bpf.RawInstruction
	vm  *bpf.VM
}

// CompileFilter compiles a filter in tcpdump's syntax ("tcp port 443 and net 10.0.0.0/8")
// for frames of link type lt. It runs `tcpdump -ddd` (libpcap's compiler, the reference for
// that syntax) on an empty capture file of that link type, so that the probe itself needs
// neither cgo nor libpcap.
func CompileFilter(ctx context.Context, expr string, lt LinkType) (*Filter, error) {
	bin, err := exec.LookPath("tcpdump")
	if err != nil {
		return nil, ErrNoTcpdump
	}
	dir, err := os.MkdirTemp("", "capture-filter")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	empty := filepath.Join(dir, "empty.pcap")
	hdr := []byte{0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, byte(lt), byte(lt >> 8), 0, 0}
	if err := os.WriteFile(empty, hdr, 0o600); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "-ddd", "-r", empty, "--", expr)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("capture: filter %q: %s", expr, strings.TrimSpace(stderr.String()))
	}
	return ParseFilter(string(out))
}

// ParseFilter reads a program in the form `tcpdump -ddd` prints: the number of
// instructions, then one "code jt jf k" line each.
func ParseFilter(text string) (*Filter, error) {
	sc := bufio.NewScanner(strings.NewReader(text))
	var n int
	var raw []bpf.RawInstruction
	for i := 0; sc.Scan(); i++ {
		f := strings.Fields(sc.Text())
		if i == 0 {
			v, err := strconv.Atoi(strings.Join(f, ""))
			if err != nil || v <= 0 || v > 4096 {
				return nil, fmt.Errorf("capture: bad filter program length %q", sc.Text())
			}
			n = v
			continue
		}
		if len(f) != 4 {
			return nil, fmt.Errorf("capture: bad filter instruction %q", sc.Text())
		}
		var v [4]uint64
		for j, s := range f {
			x, err := strconv.ParseUint(s, 10, 32)
			if err != nil || j > 0 && j < 3 && x > 255 || j == 0 && x > 0xffff {
				return nil, fmt.Errorf("capture: bad filter instruction %q", sc.Text())
			}
			v[j] = x
		}
		raw = append(raw, bpf.RawInstruction{Op: uint16(v[0]), Jt: uint8(v[1]), Jf: uint8(v[2]), K: uint32(v[3])})
	}
	if len(raw) != n {
		return nil, fmt.Errorf("capture: filter program has %d instructions, announced %d", len(raw), n)
	}
	ins, ok := bpf.Disassemble(raw)
	if !ok {
		return nil, errors.New("capture: filter program holds instructions the checker does not know")
	}
	vm, err := bpf.NewVM(ins)
	if err != nil {
		return nil, fmt.Errorf("capture: filter program: %w", err)
	}
	return &Filter{raw: raw, vm: vm}, nil
}

// Match says whether the filter keeps a frame.
func (f *Filter) Match(frame []byte) bool {
	n, err := f.vm.Run(frame)
	return err == nil && n > 0
}

// Raw returns the program, for the kernel (SO_ATTACH_FILTER).
func (f *Filter) Raw() []bpf.RawInstruction { return f.raw }
