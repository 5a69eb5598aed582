package main

import (
	"flag"
	"fmt"
	"strconv"
	"testing"
	"time"
)

// `crosscheck --spec FILE --out FILE` (workflow/scripts/README.md): the driver's own loop
// (calibratedCell: warm-up, calibration, batches timed with time.Now) and the standard
// library's testing.Benchmark time the very same call of each cell, then of the drift
// reference, in alternating blocks. testing.Benchmark shares no timing code with the
// driver: its b.Loop ramp-up, its clock and its figure T/N.

var crosscheckColumns = []string{
	"language", "implementation", "implementation_version", "operation", "algorithm", "key_bits",
	"input", "input_bytes", "alternation", "timer", "harness", "harness_version", "samples", "ns_per_op", "status",
}

const (
	minBlockBatches = 3          // a driver block's batches, however short block_seconds is
	driverHarness   = "jwtbench" // the harness column of the driver's blocks
	nativeHarness   = "testing.B"
)

func crosscheckCommand(args []string) (err error) {
	// A timed call that fails after its cell's check panics in the driver's batch loop, as
	// in bench; the driver then ends with exit 1, not Go's panic status 2.
	defer func() {
		if problem := recover(); problem != nil {
			err = fmt.Errorf("%v", problem)
		}
	}()
	flags, err := parseFlags("crosscheck", args, "spec", "out")
	if err != nil {
		return err
	}
	spec, err := readSpec(flags["spec"])
	if err != nil {
		return err
	}
	if err := spec.checkCrosscheck(); err != nil {
		return usagef("spec %s: %v", spec.path, err)
	}
	out, err := createCSV(flags["out"], crosscheckColumns)
	if err != nil {
		return err
	}
	if err := crosscheck(spec, out); err != nil {
		out.close()
		return err
	}
	progress("sink %d", sink)
	return out.close()
}

// crosscheckRun is the blocks' CSV and the spec's alternations and block length.
type crosscheckRun struct {
	out          *rowWriter
	alternations int
	blockTime    time.Duration
	warmup       time.Duration
	cells        int // the spec's cells and the drift reference, for the progress lines
	done         int
}

// crosscheck prepares and checks each cell as suite jwt does, warms its batch up and
// calibrates it as bench does (warm-up until steady too), then alternates blocks on it; then
// on the drift reference.
func crosscheck(spec *benchSpec, out *rowWriter) error {
	testing.Init() // registers testing.Benchmark's flags (test.benchtime) on flag.CommandLine
	b := budgetOf(spec.Timing)
	run := &crosscheckRun{out: out, alternations: *spec.Crosscheck.Alternations,
		blockTime: seconds(*spec.Crosscheck.BlockSeconds), warmup: b.warmup, cells: len(spec.Cells) + 1}
	inputs := newJWTInputs()
	for _, cell := range spec.Cells {
		prepared, status, err := inputs.prepare(spec, cell) // says on stderr why a cell is not timed
		if err != nil {
			return err
		}
		if status != "" {
			run.done++
			if err := run.write(prepared.label, 0, "driver", 0, "", status); err != nil {
				return err
			}
			continue
		}
		timer := &calibratedCell{run: prepared.batch(cell.Operation), budget: b, passLength: int64(len(prepared.tokens))}
		timer.warmUpAndCalibrate()
		if err := run.alternate(prepared.label, timer, prepared.benchmark(cell.Operation)); err != nil {
			return err
		}
	}
	reference := newDriftReference(spec.Suite, b)
	return run.alternate(reference.label, reference.timer, referenceBenchmark())
}

// alternate warms testing.Benchmark up on the cell's call for warmup_seconds, then runs
// the alternations on the cell's calibrated batch (`timer`): a driver block and a native
// block each, the driver's first when k is odd, one row per block.
func (c *crosscheckRun) alternate(label cellLabel, timer *calibratedCell, native *nativeBenchmark) error {
	if _, err := native.block(c.warmup); err != nil {
		return err
	}
	ratios := make([]float64, 0, c.alternations)
	for k := 1; k <= c.alternations; k++ {
		order := []string{"driver", "native"}
		if k%2 == 0 {
			order = []string{"native", "driver"}
		}
		figures := map[string]float64{}
		for _, timerName := range order {
			figure, samples, err := c.runBlock(timerName, timer, native)
			if err != nil {
				return err
			}
			figures[timerName] = figure
			if err := c.write(label, k, timerName, samples, strconv.FormatFloat(figure, 'f', 3, 64), "ok"); err != nil {
				return err
			}
		}
		ratios = append(ratios, figures["driver"]/figures["native"])
	}
	c.done++
	progress("[%d/%d] %s: batch of %d calls; driver / %s %.3f (median of %d alternations)", c.done, c.cells,
		describe(label), timer.batch, nativeHarness, medianOf(ratios), len(ratios))
	return nil
}

// runBlock runs one block: the driver's (its batches' median ns/op, the batches) or
// testing.Benchmark's (its T/N, from one run).
func (c *crosscheckRun) runBlock(timerName string, timer *calibratedCell, native *nativeBenchmark) (float64, int, error) {
	if timerName == "driver" {
		figure, batches := driverBlock(timer, c.blockTime)
		return figure, batches, nil
	}
	figure, err := native.block(c.blockTime)
	return figure, 1, err
}

// write writes one block's row; an untimed cell's (alternation 0) has no figure.
func (c *crosscheckRun) write(label cellLabel, alternation int, timer string, samples int, nsPerOp, status string) error {
	harness, version := driverHarness, ""
	if timer == "native" {
		harness, version = nativeHarness, goVersionNumber()
	}
	itoa := strconv.Itoa
	return c.out.writeRecord([]string{
		"go", label.implementation, label.version, label.operation, label.algorithm, itoa(label.keyBits), label.input,
		itoa(label.inputBytes), itoa(alternation), timer, harness, version, itoa(samples), nsPerOp, status,
	})
}

// driverBlock is batches of the calibrated n (the driver's clock and sink) until the
// block has lasted `block` and has at least minBlockBatches: their median ns/op.
func driverBlock(timer *calibratedCell, block time.Duration) (float64, int) {
	var perCall []float64
	start := time.Now()
	for len(perCall) < minBlockBatches || time.Since(start) < block {
		perCall = append(perCall, float64(timer.takeSample())/float64(timer.batch))
	}
	return medianOf(perCall), len(perCall)
}

// nativeBenchmark is a cell's benchmark function for testing.Benchmark, and the error of
// a call that failed in it.
type nativeBenchmark struct {
	run    func(b *testing.B)
	failed error
}

// block is one testing.Benchmark run with test.benchtime set to `d` (at least one call):
// b.Loop's own ramp-up of the iteration count, its clock, and its figure T/N in ns.
func (n *nativeBenchmark) block(d time.Duration) (float64, error) {
	if err := flag.Set("test.benchtime", max(d, time.Nanosecond).String()); err != nil {
		return 0, err
	}
	result := testing.Benchmark(n.run)
	if result.N == 0 {
		return 0, fmt.Errorf("testing.Benchmark timed no call: %v", n.failed)
	}
	return float64(result.T.Nanoseconds()) / float64(result.N), nil
}

// benchmark is b.Loop around the very call the cell's batch makes (preparedJWT.call),
// through the same inputs in the same order. A failed call ends the run (b.FailNow).
func (p *preparedJWT) benchmark(operation string) *nativeBenchmark {
	native := &nativeBenchmark{}
	position, count := 0, len(p.input.claims)
	native.run = func(b *testing.B) {
		for b.Loop() {
			if _, err := p.call(operation, position); err != nil {
				native.failed = fmt.Errorf("%s failed while timed: %v", operation, err)
				b.FailNow()
			}
			if position++; position == count {
				position = 0
			}
		}
	}
	return native
}

// referenceBenchmark is b.Loop around the drift reference's call as its batch makes it
// (digestBatch on referenceCall).
func referenceBenchmark() *nativeBenchmark {
	digest, message := referenceCall()
	return &nativeBenchmark{run: func(b *testing.B) {
		var buffer [64]byte
		for b.Loop() {
			digest(buffer[:0], message)
		}
	}}
}
