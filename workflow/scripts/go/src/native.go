package main

import (
	"flag"
	"fmt"
	"testing"
	"time"
)

// A cross-check spec's native requests: the standard library's testing.Benchmark times a
// cell's very call (its b.Loop ramp-up, its clock, its figure T/N), sharing no timing code
// with the batches.

const nativeHarness = "testing.B"

// nativeFailure is why a benchmark function's call failed (b.FailNow loses its words).
var nativeFailure error

// nativeRun is one testing.Benchmark run of about `seconds` (test.benchtime, at least one
// call): its ns per call, over one run.
func nativeRun(benchmark func(b *testing.B), seconds float64) (float64, error) {
	testing.Init() // registers test.benchtime on flag.CommandLine (once)
	benchtime := max(time.Duration(seconds*float64(time.Second)), time.Nanosecond)
	if err := flag.Set("test.benchtime", benchtime.String()); err != nil {
		return 0, err
	}
	nativeFailure = nil
	result := testing.Benchmark(benchmark)
	if result.N == 0 {
		return 0, fmt.Errorf("testing.Benchmark timed no call: %v", nativeFailure)
	}
	return float64(result.T.Nanoseconds()) / float64(result.N), nil
}
