package main

import (
	"fmt"
	"time"
)

// Suites percall and tokensize: single calls, each timed on its own.

// benchPercall is seed 001's method: every cell prepared and checked first, then cell by
// cell warmup_calls untimed calls and `calls` calls each timed alone.
func benchPercall(spec *benchSpec, out *rowWriter) error {
	inputs := newJWTInputs()
	prepared := make([]*preparedJWT, len(spec.Cells))
	statuses := make([]string, len(spec.Cells))
	for i, cell := range spec.Cells {
		var err error
		if prepared[i], statuses[i], err = inputs.prepare(spec, cell); err != nil {
			return err
		}
	}
	limit := budgetOf(spec.Timing).maxCell
	warmups, calls := *spec.Percall.WarmupCalls, *spec.Percall.Calls
	for i, cell := range spec.Cells {
		p := prepared[i]
		if statuses[i] != "" {
			if err := out.untimed(p.label, statuses[i]); err != nil {
				return err
			}
			continue
		}
		elapsed := make([]int64, 0, calls)
		start := time.Now()
		timedOut := false
		for number := 1; number <= warmups+calls; number++ {
			began := time.Now()
			size, err := p.call(cell.Operation, 0)
			took := time.Since(began)
			if err != nil {
				return fmt.Errorf("%s: %v", describe(p.label), err)
			}
			sink += int64(size)
			if number > warmups {
				elapsed = append(elapsed, max(int64(took), 1))
			}
			if number < warmups+calls && time.Since(start) > limit {
				timedOut = true
				break
			}
		}
		if err := writeSingleCalls(out, p.label, elapsed, p.meanTokenBytes(), timedOut, time.Since(start)); err != nil {
			return err
		}
		progress("%s: %d calls, median %.0f ns%s", describe(p.label), len(elapsed), medianOfInts(elapsed), timeoutNote(timedOut))
	}
	return nil
}

// writeSingleCalls writes a cell's single timed calls as rows 1.. (iterations 1); a
// timed-out cell's rows say timeout, and with none it writes the time it spent.
func writeSingleCalls(out *rowWriter, label cellLabel, elapsed []int64, outputBytes int, timedOut bool, spent time.Duration) error {
	status := "ok"
	if timedOut {
		status = "timeout"
		if len(elapsed) == 0 {
			return out.write(label, sampleRow{0, 0, int64(spent), outputBytes, status})
		}
	}
	for i, ns := range elapsed {
		if err := out.write(label, sampleRow{i + 1, 1, ns, outputBytes, status}); err != nil {
			return err
		}
	}
	return nil
}

func medianOfInts(values []int64) float64 {
	if len(values) == 0 {
		return 0
	}
	floats := make([]float64, len(values))
	for i, v := range values {
		floats[i] = float64(v)
	}
	return medianOf(floats)
}

// benchTokensize signs every record once, in file order, each call timed alone; the
// sizes are the result.
func benchTokensize(spec *benchSpec, out *rowWriter) error {
	inputs := newJWTInputs()
	limit := budgetOf(spec.Timing).maxCell
	for _, cell := range spec.Cells {
		p, status, err := inputs.prepare(spec, cell)
		if err != nil {
			return err
		}
		if status != "" {
			if err := out.untimed(p.label, status); err != nil {
				return err
			}
			continue
		}
		type signed struct {
			ns         int64
			tokenBytes int
		}
		count := len(p.input.claims)
		done := make([]signed, 0, count)
		start := time.Now()
		timedOut := false
		nextReport := count / 10
		for i, claims := range p.input.native {
			began := time.Now()
			token, err := p.keys.sign(claims)
			took := time.Since(began)
			if err != nil {
				return fmt.Errorf("%s: record %d: %v", describe(p.label), i+1, err)
			}
			done = append(done, signed{max(int64(took), 1), len(token)})
			if i+1 >= nextReport {
				progress("%s: %d/%d records", describe(p.label), i+1, count)
				nextReport += max(count/10, 1)
			}
			if i+1 < count && time.Since(start) > limit {
				timedOut = true
				break
			}
		}
		status = "ok"
		if timedOut {
			status = "timeout"
		}
		label := p.label
		for i, call := range done {
			label.inputBytes = len(p.input.records[i])
			if err := out.write(label, sampleRow{i + 1, 1, call.ns, call.tokenBytes, status}); err != nil {
				return err
			}
		}
	}
	return nil
}
