package main

import (
	"crypto/sha256"
	"fmt"
	"math"
	"os"
	"slices"
	"time"
)

// sink folds every timed result, and is printed at the end, so the compiler cannot
// drop the work being timed.
var sink int64

// batchFunc makes n calls of a cell's operation and returns their folded output sizes.
type batchFunc func(n int64) int64

type budget struct {
	warmup, target, maxCell, warmupMax time.Duration
	processWarmup                      time.Duration // the warm-up: the process's first cell warms up at least this long
	steadyWindow                       int
	steadyTolerance                    float64
	rule                               stopRule // the stopping rule; rule.samples is the cap
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func budgetOf(t *timingSpec) budget {
	value := func(p *float64, otherwise float64) float64 {
		if p == nil {
			return otherwise
		}
		return *p
	}
	b := budget{
		warmup:          seconds(value(t.WarmupSeconds, 0)),
		target:          seconds(value(t.TargetSampleSeconds, 0.01)),
		maxCell:         seconds(value(t.MaxCellSeconds, 60)),
		warmupMax:       seconds(value(t.WarmupMaxSeconds, 0)),
		processWarmup:   seconds(value(t.ProcessWarmupSeconds, 0)),
		steadyWindow:    5,
		steadyTolerance: value(t.SteadyTolerance, 0.03),
		rule:            stopRuleOf(t),
	}
	if t.SteadyWindow != nil {
		b.steadyWindow = *t.SteadyWindow
	}
	return b
}

// timeBatch times one batch of n calls with the monotonic clock.
func timeBatch(run batchFunc, n int64) time.Duration {
	start := time.Now()
	folded := run(n)
	elapsed := time.Since(start)
	sink ^= folded
	return max(elapsed, 1)
}

// calibratedCell is one cell being warmed up, calibrated and sampled: its batch size and the
// time it has used.
type calibratedCell struct {
	run        batchFunc
	budget     budget
	passLength int64 // calls per pass through the cell's inputs (records); 1 otherwise
	batch      int64
	spent      time.Duration
	timedOut   bool
	steadiness string
	samples    []time.Duration
}

// wholePasses rounds a batch that holds at least one pass through `count` inputs to
// the nearest whole number of passes, so every sample times the same inputs.
func wholePasses(n, count int64) int64 {
	if n < count {
		return n
	}
	return max(1, int64(math.Round(float64(n)/float64(count)))) * count
}

// processWarmedUp is the warm-up rule's "a cell of this process has warmed up".
var processWarmedUp bool

// warmUpAndCalibrate is the warm-up and calibration: warm up (the process's first cell for
// at least process_warmup_seconds), size the batch, and when asked go on until steady and
// size it again. A cell whose planned samples (min_samples with the stopping rule on, else
// samples) cannot fit in max_cell_seconds is a timeout from here on.
func (c *calibratedCell) warmUpAndCalibrate() {
	start := time.Now()
	warmup := c.budget.warmup
	if !processWarmedUp {
		processWarmedUp = true
		warmup = max(warmup, c.budget.processWarmup)
	}
	last := c.calibrate(start, c.warmUp(start, warmup))
	if c.budget.warmupMax > 0 {
		c.steadiness = c.untilSteady(start)
		last = c.calibrate(start, last)
	}
	c.spent = time.Since(start)
	perBatch := c.budget.target
	if c.batch == 1 {
		perBatch = last
	}
	projected := c.spent + time.Duration(c.budget.rule.plannedSamples())*perBatch
	c.timedOut = projected > c.budget.maxCell
}

// warmUp is the warm-up: single calls for `warmup` (at least one, never past
// max_cell_seconds); it returns the last call's time.
func (c *calibratedCell) warmUp(start time.Time, warmup time.Duration) time.Duration {
	for {
		last := timeBatch(c.run, 1)
		if time.Since(start) >= warmup || time.Since(start) > c.budget.maxCell {
			return last
		}
	}
}

// calibrate doubles the batch until it lasts a tenth of the target, then scales it to
// the target; it returns the last batch's time.
func (c *calibratedCell) calibrate(start time.Time, last time.Duration) time.Duration {
	n := int64(1)
	for time.Since(start) <= c.budget.maxCell {
		last = timeBatch(c.run, n)
		if last >= c.budget.target/10 {
			n = max(1, int64(math.Round(float64(n)*float64(c.budget.target)/float64(last))))
			break
		}
		n *= 2
	}
	c.batch = wholePasses(n, c.passLength)
	return last
}

// untilSteady runs windows of steady_window timed batches until a window's median ns/op
// is within steady_tolerance of the previous window's, or the warm-up has lasted
// warmup_max_seconds (never past max_cell_seconds).
func (c *calibratedCell) untilSteady(start time.Time) string {
	until := min(c.budget.warmupMax, c.budget.maxCell)
	var window []float64
	previous, change, compared := 0.0, 0.0, false
	for time.Since(start) < until {
		window = append(window, float64(timeBatch(c.run, c.batch))/float64(c.batch))
		if len(window) < c.budget.steadyWindow {
			continue
		}
		median := medianOf(window)
		window = window[:0]
		if previous > 0 {
			change, compared = math.Abs(median-previous)/previous, true
			if change <= c.budget.steadyTolerance {
				return fmt.Sprintf("steady after %.2f s", time.Since(start).Seconds())
			}
		}
		previous = median
	}
	last := "none: fewer than two windows"
	if compared {
		last = fmt.Sprintf("%.1f%%", 100*change)
	}
	return fmt.Sprintf("not steady after %.2f s (last change %s)", time.Since(start).Seconds(), last)
}

// withinTime is the time cap: no cell is sampled once its own time has passed max_cell_seconds.
func (c *calibratedCell) withinTime() bool {
	return c.spent < c.budget.maxCell
}

func (c *calibratedCell) takeSample() time.Duration {
	elapsed := timeBatch(c.run, c.batch)
	c.samples = append(c.samples, elapsed)
	c.spent += elapsed
	return elapsed
}

func (c *calibratedCell) status() string {
	if c.timedOut {
		return "timeout"
	}
	return "ok"
}

func medianOf(values []float64) float64 {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	return sortedMedian(sorted)
}

// timedCell is a checked cell ready to be warmed up, calibrated and sampled: its position in the
// spec's cells (what the spec's pairs refer to), its row label, its batch, and the size its
// output rows carry.
type timedCell struct {
	index       int
	label       cellLabel
	outputBytes int
	timer       *calibratedCell
}

// runInterleaved times a suite's checked cells by the timing rules from the warm-up on, in
// spec order: each warmed up and calibrated in turn, then sampled in interleaved rounds,
// every row written as measured. After each round the stopping rule (rounds.endRound) stops
// the cells that are precise enough or at the sample cap; a cell whose time is up stops
// before its next sample. The spec's cells that are not here (unsupported, failed,
// per-iteration) count as not sampling. Every round in which a cell samples opens with a
// sample of the drift reference, calibrated after the cells.
func runInterleaved(cells []*timedCell, spec *benchSpec, out *rowWriter) error {
	b := budgetOf(spec.Timing)
	for _, cell := range cells {
		cell.timer.budget = b
		cell.timer.warmUpAndCalibrate()
		note := ""
		if cell.timer.steadiness != "" {
			note = "; " + cell.timer.steadiness
		}
		progress("%s: batch of %d calls%s%s", describe(cell.label), cell.timer.batch, note, timeoutNote(cell.timer.timedOut))
	}
	state := newRounds(len(spec.Cells), spec.pairs, b.rule)
	inRounds := make([]bool, len(spec.Cells))
	for _, cell := range cells {
		inRounds[cell.index] = true
	}
	for index, in := range inRounds {
		if !in {
			state.stop(index, notSampled)
		}
	}
	var reference *driftReference
	if slices.ContainsFunc(cells, func(cell *timedCell) bool { return cell.timer.withinTime() }) {
		reference = newDriftReference(spec.Suite, b)
		progress("%s: batch of %d calls", describe(reference.label), reference.timer.batch)
	}
	for round := 1; round <= b.rule.samples; round++ {
		took := 0
		for _, cell := range cells {
			if !state.sampling(cell.index) {
				continue
			}
			if !cell.timer.withinTime() {
				state.stop(cell.index, stopExhausted)
				continue
			}
			if took == 0 {
				// The drift reference: the round's reference sample comes before its first cell sample.
				if err := reference.sample(round, out); err != nil {
					return err
				}
			}
			elapsed := cell.timer.takeSample()
			state.add(cell.index, round, float64(elapsed)/float64(cell.timer.batch))
			took++
			row := sampleRow{round, cell.timer.batch, int64(elapsed), cell.outputBytes, cell.timer.status()}
			if err := out.write(cell.label, row); err != nil {
				return err
			}
		}
		if took == 0 {
			break
		}
		state.endRound()
		progress("round %d/%d: %d cells sampled", round, b.rule.samples, took)
	}
	for _, cell := range cells {
		if len(cell.timer.samples) == 0 {
			// A timeout cell with no sample: one row holding the time it spent.
			row := sampleRow{0, 0, int64(cell.timer.spent), cell.outputBytes, "timeout"}
			if err := out.write(cell.label, row); err != nil {
				return err
			}
			progress("%s: timeout after %.2f s, no sample", describe(cell.label), cell.timer.spent.Seconds())
			continue
		}
		perCall := state.values(cell.index)
		progress("%s: median %.1f ns/op over %d samples (%s), stopped at %s", describe(cell.label), medianOf(perCall),
			len(perCall), cell.timer.status(), state.stopped[cell.index].describe())
	}
	if reference != nil {
		reference.report()
	}
	return nil
}

// driftReference is the drift reference: SHA-256 of the 64 bytes 00 01 ... 3f, suite hash's
// digest batch on go-crypto (so a hash cell may name the same implementation), sampled once at
// the start of every round in which a cell samples. It is no cell of the spec: the stopping
// rule never sees it, and its time is its own, not any cell's.
type driftReference struct {
	label cellLabel
	timer *calibratedCell
}

// newDriftReference warms the reference up and calibrates its batch as a cell's warm-up and
// calibration do (never until steady). It has no max_cell_seconds of its own, so none cuts
// them short.
func newDriftReference(suite string, b budget) *driftReference {
	b.maxCell = math.MaxInt64
	r := referenceOf(suite)
	r.timer.budget = b
	start := time.Now()
	r.timer.calibrate(start, r.timer.warmUp(start, b.warmup)) // no cell: never the process's warm-up
	return r
}

// referenceOf is the drift reference's label and batch, before any warm-up.
func referenceOf(suite string) *driftReference {
	digest, message := referenceCall()
	return &driftReference{
		label: cellLabel{
			implementation: stdlibCrypto, version: goVersionNumber(), suite: suite, operation: "reference",
			algorithm: "SHA-256", input: "reference", inputBytes: len(message),
		},
		timer: &calibratedCell{run: digestBatch(digest, message), passLength: 1},
	}
}

// referenceCall is what the drift reference's batch calls: SHA-256 and its 64-byte message.
func referenceCall() (digestInto, []byte) {
	return digests["SHA-256"], patternBytes(64)
}

// sample times one batch of the reference and writes it as the round's reference row.
func (r *driftReference) sample(round int, out *rowWriter) error {
	elapsed := r.timer.takeSample()
	return out.write(r.label, sampleRow{round, r.timer.batch, int64(elapsed), sha256.Size, "ok"})
}

// report is the reference's end-of-run line on stderr: its median ns/op over the rounds.
func (r *driftReference) report() {
	perCall := make([]float64, len(r.timer.samples))
	for i, elapsed := range r.timer.samples {
		perCall[i] = float64(elapsed) / float64(r.timer.batch)
	}
	if len(perCall) > 0 {
		progress("%s: median %.1f ns/op over %d rounds", describe(r.label), medianOf(perCall), len(perCall))
	}
}

func timeoutNote(timedOut bool) string {
	if timedOut {
		return "; its samples cannot fit in max_cell_seconds: timeout"
	}
	return ""
}

func describe(label cellLabel) string {
	return fmt.Sprintf("%s %s %s-%d %s", label.suite, label.operation, label.algorithm, label.keyBits, label.input)
}

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

// checkedCell is one spec cell prepared and checked: timed (status "") or not timed
// (status unsupported or failed, and why).
type checkedCell struct {
	*timedCell     // its index and label; its batch and output size when timed
	status, reason string
}

// checkedCells gathers a suite's cells, prepared and checked, in spec order: what bench
// times (runInterleaved) or writes one untimed row for, and what serve describes.
type checkedCells []checkedCell

// add takes the cell at position index of the spec's cells; one whose check failed is not timed.
func (c *checkedCells) add(index int, label cellLabel, run batchFunc, outputBytes int, checkErr error) {
	if checkErr != nil {
		progress("%s: check failed: %v", describe(label), checkErr)
		*c = append(*c, checkedCell{&timedCell{index: index, label: label}, "failed", checkErr.Error()})
		return
	}
	*c = append(*c, checkedCell{timedCell: &timedCell{index, label, outputBytes, &calibratedCell{run: run, passLength: 1}}})
}

// bench writes each untimed cell's row, then times the others (runInterleaved).
func (c checkedCells) bench(spec *benchSpec, out *rowWriter) error {
	var timed []*timedCell
	for _, cell := range c {
		if cell.status != "" {
			if err := out.untimed(cell.label, cell.status); err != nil {
				return err
			}
			continue
		}
		timed = append(timed, cell.timedCell)
	}
	return runInterleaved(timed, spec, out)
}

// benched is bench of a suite whose cells prepare checks (the suites serve serves too).
func benched(prepare func(*benchSpec) (checkedCells, error)) func(*benchSpec, *rowWriter) error {
	return func(spec *benchSpec, out *rowWriter) error {
		cells, err := prepare(spec)
		if err != nil {
			return err
		}
		return cells.bench(spec, out)
	}
}
