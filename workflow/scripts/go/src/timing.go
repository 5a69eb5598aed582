package main

import (
	"crypto/sha256"
	"fmt"
	"testing"
)

// sink folds every timed result, and is answered at the end, so the compiler cannot drop
// the work being timed.
var sink int64

// batchFunc makes n calls of a cell's operation and returns their folded output sizes; a
// call that fails panics (serve answers the batch with the error).
type batchFunc func(n int64) int64

// cell is one spec cell prepared and checked: timed (status "") or unsupported or failed.
type cell struct {
	status, reason          string
	inputBytes, outputBytes int
	passLength              int64 // calls per pass through the cell's records (0: one)
	run                     batchFunc
	// after, when set, gives a batch's further answer fields, untimed, once it has run.
	after func(n, folded int64) (map[string]any, error)
	// native is testing.Benchmark's function on the very call of run (cross-check specs).
	native func(b *testing.B)
}

// cells gathers a suite's cells, prepared and checked, in spec order.
type cells []*cell

// add takes the next cell of the spec; one whose check failed is not timed.
func (c *cells) add(inputBytes int, run batchFunc, outputBytes int, checkErr error) {
	*c = append(*c, checked(&cell{inputBytes: inputBytes, run: run, outputBytes: outputBytes}, checkErr))
}

// checked is the cell, or with checkErr its failed entry.
func checked(c *cell, checkErr error) *cell {
	if checkErr != nil {
		return &cell{status: "failed", reason: checkErr.Error(), inputBytes: c.inputBytes}
	}
	return c
}

// oneCall checks that a batch of one call consumes what the checked call returned.
func oneCall(run batchFunc, outputBytes int) error {
	if got := run(1); got != int64(outputBytes) {
		return fmt.Errorf("one call consumed %d bytes, the checked call %d", got, outputBytes)
	}
	return nil
}

// reference is the drift reference: suite hash's SHA-256 digest batch on 64 bytes.
func reference() *cell {
	digest, message := digests["SHA-256"], patternBytes(64)
	return &cell{
		inputBytes: len(message), outputBytes: sha256.Size, run: digestBatch(digest, message),
		native: func(b *testing.B) {
			var buffer [64]byte
			for b.Loop() {
				digest(buffer[:0], message)
			}
		},
	}
}
