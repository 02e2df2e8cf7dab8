package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
)

// startProfiles starts CPU profiling into cpuFile and turns on mutex and block profiling; the
// function it returns stops them and writes the mutex and block profiles next to cpuFile.
func startProfiles(cpuFile string) (func() error, error) {
	f, err := os.Create(cpuFile)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("compare: %w", err)
	}
	runtime.SetMutexProfileFraction(10)
	runtime.SetBlockProfileRate(100_000) // one blocking event per 100 µs blocked
	return func() error {
		pprof.StopCPUProfile()
		errs := []error{f.Close()}
		base := strings.TrimSuffix(cpuFile, ".cpu.pprof")
		for _, name := range []string{"mutex", "block"} {
			errs = append(errs, writeProfile(name, base+"."+name+".pprof"))
		}
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("compare: profiles: %w", err)
		}
		return nil
	}, nil
}

func writeProfile(name, file string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
