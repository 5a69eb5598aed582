package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
)

// The stopping rule (workflow/scripts/README.md, "The stopping rule"): a cell stops being
// sampled once its median, and the median of every round-paired ratio it takes part in, is
// precise enough. workflow/scripts/jwtbench/stopping_rule.py is the reference; runInterleaved
// (timing.go) and the `stopping` subcommand (replay, below) both go through stopRule and rounds.

// stopReason says why a cell no longer samples ("" while it still does).
type stopReason string

const (
	stillSampling stopReason = ""
	stopPrecision stopReason = "precision"
	stopSampleCap stopReason = "sample_cap"
	// stopExhausted: the cell's time passed max_cell_seconds (the time cap); in a
	// replay, its values ran out.
	stopExhausted stopReason = "exhausted"
	// notSampled: a cell outside the rounds (unsupported, failed, per-iteration).
	notSampled stopReason = "not_sampled"
)

// describe is the reason as the end-of-run progress line says it.
func (r stopReason) describe() string {
	switch r {
	case stopPrecision:
		return "precision"
	case stopSampleCap:
		return "sample cap"
	case stopExhausted, stillSampling:
		return "time cap"
	}
	return string(r)
}

// maxSamples bounds timing.samples: 0.5^n stays a normal float64 up to n = 1022.
const maxSamples = 1000

// medianCIRanks gives the 1-based ranks (lower, upper) of the order statistics that bound
// the distribution-free CI of the median of n values; ok is false when n is too small
// for any interval at this confidence (n < 6 at 0.95). lower is the largest rank with
// P(Binomial(n, 1/2) <= lower-1) <= (1-confidence)/2, summed upwards from 0.5^n in
// float64, each next term the last one times (n-k), then divided by (k+1): the very
// operations, in the same order, of every driver.
func medianCIRanks(n int, confidence float64) (lower, upper int, ok bool) {
	tail := (1 - confidence) / 2
	term, cumulative := math.Ldexp(1, -n), 0.0 // 0.5^n, exactly
	for k := 0; k < n; k++ {
		cumulative += term
		if cumulative > tail {
			break
		}
		lower = k + 1
		term = term * float64(n-k) / float64(k+1)
	}
	if lower == 0 {
		return 0, 0, false
	}
	return lower, n + 1 - lower, true
}

// sortedMedian is the middle value of sorted values (the mean of the two middle ones).
func sortedMedian(sorted []float64) float64 {
	middle := len(sorted) / 2
	if len(sorted)%2 == 1 {
		return sorted[middle]
	}
	return (sorted[middle-1] + sorted[middle]) / 2
}

// halfwidthPct is half the width of the median's CI in percent of the median; +Inf when
// there are too few values for a CI, or the median is 0.
func halfwidthPct(values []float64, confidence float64) float64 {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	lower, upper, ok := medianCIRanks(len(sorted), confidence)
	median := 0.0
	if len(sorted) > 0 {
		median = sortedMedian(sorted)
	}
	if !ok || median == 0 {
		return math.Inf(1)
	}
	return (sorted[upper-1] - sorted[lower-1]) / 2 / math.Abs(median) * 100
}

// stopRule is what the stopping rule reads from the spec's timing.
type stopRule struct {
	samples     int     // the cap
	minSamples  int     // no precision stop before this many
	targetCIPct float64 // 0: the rule is off, every cell takes `samples`
	confidence  float64
}

// stopRuleOf reads the rule from a checked timing section, with the contract's defaults.
func stopRuleOf(t *timingSpec) stopRule {
	rule := stopRule{samples: 1, minSamples: 20, targetCIPct: 1.0, confidence: 0.95}
	if t.Samples != nil {
		rule.samples = *t.Samples
	}
	if t.MinSamples != nil {
		rule.minSamples = *t.MinSamples
	}
	if t.TargetCIPct != nil {
		rule.targetCIPct = *t.TargetCIPct
	}
	if t.Confidence != nil {
		rule.confidence = *t.Confidence
	}
	return rule
}

// precise: at least minSamples values whose median's CI half-width is within the target
// (never with targetCIPct 0).
func (r stopRule) precise(values []float64) bool {
	return r.targetCIPct > 0 && len(values) >= r.minSamples && halfwidthPct(values, r.confidence) <= r.targetCIPct
}

// plannedSamples is how many batches a cell must fit in max_cell_seconds at calibration:
// min_samples when the rule may stop it before the cap, else the cap.
func (r stopRule) plannedSamples() int {
	if r.targetCIPct > 0 {
		return min(r.minSamples, r.samples)
	}
	return r.samples
}

// roundSample is one sample's ns/op and the round it was taken in.
type roundSample struct {
	round   int
	nsPerOp float64
}

// rounds is the stopping rule's state over one run's cells (indexes into the spec's cells):
// feed each round's samples with add, then endRound decides which cells go on. pairs are
// (i, j) cell indexes whose ratio i / j a verdict rests on.
type rounds struct {
	rule    stopRule
	pairs   [][2]int
	taken   [][]roundSample // per cell, in round order
	stopped []stopReason
}

func newRounds(cellCount int, pairs [][2]int, rule stopRule) *rounds {
	return &rounds{rule, pairs, make([][]roundSample, cellCount), make([]stopReason, cellCount)}
}

func (r *rounds) sampling(cell int) bool { return r.stopped[cell] == stillSampling }

// count is how many samples a cell has.
func (r *rounds) count(cell int) int { return len(r.taken[cell]) }

// add records a cell's sample of a round (rounds come in increasing order).
func (r *rounds) add(cell, round int, nsPerOp float64) {
	r.taken[cell] = append(r.taken[cell], roundSample{round, nsPerOp})
}

// stop ends a cell's sampling; the first reason given stays.
func (r *rounds) stop(cell int, reason stopReason) {
	if r.sampling(cell) {
		r.stopped[cell] = reason
	}
}

func (r *rounds) values(cell int) []float64 {
	values := make([]float64, len(r.taken[cell]))
	for k, s := range r.taken[cell] {
		values[k] = s.nsPerOp
	}
	return values
}

// paired is the per-round ratios of cell i over cell j, over the rounds both have.
func (r *rounds) paired(i, j int) []float64 {
	a, b := r.taken[i], r.taken[j]
	var ratios []float64
	for x, y := 0, 0; x < len(a) && y < len(b); {
		switch {
		case a[x].round < b[y].round:
			x++
		case a[x].round > b[y].round:
			y++
		default:
			ratios = append(ratios, a[x].nsPerOp/b[y].nsPerOp)
			x++
			y++
		}
	}
	return ratios
}

// pairsPrecise: every pair the cell takes part in whose other cell still samples is precise.
func (r *rounds) pairsPrecise(cell int) bool {
	for _, pair := range r.pairs {
		i, j := pair[0], pair[1]
		other := i
		switch cell {
		case i:
			other = j
		case j:
		default:
			continue
		}
		if r.sampling(other) && !r.rule.precise(r.paired(i, j)) {
			return false
		}
	}
	return true
}

// endRound stops each sampling cell that reached the cap or the target (its own CI and
// every pair with a still-sampling partner), decided on the state at the round's end:
// every decision is made before any cell is stopped, so cell order does not matter.
func (r *rounds) endRound() {
	decided := make([]stopReason, len(r.taken))
	for cell := range r.taken {
		if !r.sampling(cell) {
			continue
		}
		if r.count(cell) >= r.rule.samples {
			decided[cell] = stopSampleCap
		} else if r.rule.precise(r.values(cell)) && r.pairsPrecise(cell) {
			decided[cell] = stopPrecision
		}
	}
	for cell, reason := range decided {
		if reason != stillSampling {
			r.stop(cell, reason)
		}
	}
}

// replay is the rule on given per-sample values: series[c] is cell c's ns/op, sample by
// sample. Round r gives each cell still sampling its next value, or stops it as
// exhausted when its values have run out, then ends the round. It returns each cell's
// sample count and why it stopped.
func replay(series [][]float64, pairs [][2]int, rule stopRule) ([]int, []stopReason) {
	state := newRounds(len(series), pairs, rule)
	for round := 1; round <= rule.samples; round++ {
		active := 0
		for cell, values := range series {
			if !state.sampling(cell) {
				continue
			}
			active++
			if taken := state.count(cell); taken < len(values) {
				state.add(cell, round, values[taken])
			} else {
				state.stop(cell, stopExhausted)
			}
		}
		if active == 0 {
			break
		}
		state.endRound()
	}
	samples := make([]int, len(series))
	for cell := range series {
		samples[cell] = state.count(cell)
		state.stop(cell, stopExhausted) // a cell still sampling at the end ran out
	}
	return samples, state.stopped
}

// stoppingSeries is the file `stopping --series` reads.
type stoppingSeries struct {
	Timing *timingSpec `json:"timing"`
	Pairs  [][]int     `json:"pairs"`
	Series [][]float64 `json:"series"`
}

// stoppingCommand replays the stopping rule on given values (the contract test's hook) and prints
// {"samples": [...], "reasons": [...]}.
func stoppingCommand(args []string) error {
	flags, err := parseFlags("stopping", args, "series")
	if err != nil {
		return err
	}
	path := flags["series"]
	data, err := readInput(path)
	if err != nil {
		return err
	}
	var given stoppingSeries
	if err := json.Unmarshal(data, &given); err != nil {
		return usagef("--series %s: %v", path, err)
	}
	pairs, err := given.check()
	if err != nil {
		return usagef("--series %s: %v", path, err)
	}
	samples, reasons := replay(given.Series, pairs, stopRuleOf(given.Timing))
	return json.NewEncoder(os.Stdout).Encode(struct {
		Samples []int        `json:"samples"`
		Reasons []stopReason `json:"reasons"`
	}{samples, reasons})
}

func (s *stoppingSeries) check() ([][2]int, error) {
	if s.Timing == nil {
		return nil, fmt.Errorf("lacks 'timing'")
	}
	if err := s.Timing.check([]string{"samples"}); err != nil {
		return nil, err
	}
	if s.Series == nil {
		return nil, fmt.Errorf("lacks 'series'")
	}
	for c, values := range s.Series {
		for k, value := range values {
			if !(value > 0) || math.IsInf(value, 1) {
				return nil, fmt.Errorf("series[%d][%d] = %v is not a positive ns/op", c, k, value)
			}
		}
	}
	return checkPairs(s.Pairs, len(s.Series), "series")
}

// checkPairs checks the pairs against the number of cells they index (named `what`).
func checkPairs(pairs [][]int, count int, what string) ([][2]int, error) {
	checked := make([][2]int, len(pairs))
	for p, pair := range pairs {
		if len(pair) != 2 {
			return nil, fmt.Errorf("pairs[%d] is not two indexes [i, j]", p)
		}
		for _, index := range pair {
			if index < 0 || index >= count {
				return nil, fmt.Errorf("pairs[%d] = %v: index %d is outside %s (0..%d)", p, pair, index, what, count-1)
			}
		}
		if pair[0] == pair[1] {
			return nil, fmt.Errorf("pairs[%d] = %v pairs a cell with itself", p, pair)
		}
		checked[p] = [2]int{pair[0], pair[1]}
	}
	return checked, nil
}
