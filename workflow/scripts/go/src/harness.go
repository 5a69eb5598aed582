package main

import (
	"bytes"
	"crypto/subtle"
	"errors"
	"fmt"
)

// Suite harness (workflow/scripts/README.md, "Suite `harness`"): what the timing loop
// itself costs. A cell's call is a signer that suite jwt's sign batch (preparedJWT.batch)
// calls on its one input, so the loop, the clock and the sink are those of a sign cell.

// emptySigner is the signer's shape doing nothing: it returns "".
type emptySigner struct{}

func (emptySigner) sign(any) (string, error) { return "", nil }

// trivialSigner compares two equal 32-byte buffers made before timing.
type trivialSigner struct{ left, right []byte }

func (s trivialSigner) sign(any) (string, error) { return equal(s.left, s.right), nil }

// equal is subtle.ConstantTimeCompare's verdict: "1" when a and b are equal, else "0".
func equal(a, b []byte) string {
	if subtle.ConstantTimeCompare(a, b) == 1 {
		return "1"
	}
	return "0"
}

// newTrivialSigner makes the buffers (bytes 00 01 ... 1f, twice) and checks that the
// comparison says equal on them and not equal when one byte differs.
func newTrivialSigner() (trivialSigner, error) {
	left, right := patternBytes(32), patternBytes(32)
	differing := bytes.Clone(left)
	differing[31] ^= 1
	if equal(left, right) != "1" || equal(left, differing) != "0" {
		return trivialSigner{}, errors.New("subtle.ConstantTimeCompare does not tell equal from unequal 32-byte buffers")
	}
	return trivialSigner{left, right}, nil
}

// prepareHarness prepares and checks suite harness's cells.
func prepareHarness(spec *benchSpec) (checkedCells, error) {
	var cells checkedCells
	for index, cell := range spec.Cells {
		label := cellLabel{
			implementation: library.name(), version: libraryVersion(), suite: "harness", operation: cell.Operation,
			algorithm: cell.Algorithm, input: cell.Input,
		}
		run, outputBytes, err := harnessCell(cell.Operation)
		cells.add(index, label, run, outputBytes, err)
	}
	return cells, nil
}

// harnessCell is suite jwt's sign batch on one input, signed by the cell's signer; the
// check: trivial's call says equal, and a batch of one call consumes what the call returns.
func harnessCell(operation string) (batchFunc, int, error) {
	var call signer = emptySigner{}
	if operation == "trivial" {
		trivial, err := newTrivialSigner()
		if err != nil {
			return nil, 0, err
		}
		call = trivial
	}
	output, _ := call.sign(nil)
	if operation == "trivial" && output != "1" {
		return nil, 0, fmt.Errorf("the timed call returned %q, not \"1\" (equal)", output)
	}
	one := &preparedJWT{keys: &jwsKeys{signer: call}, input: &claimsInput{claims: []map[string]any{nil}, native: []any{nil}}}
	run := one.batch("sign")
	if got := run(1); got != int64(len(output)) {
		return nil, 0, fmt.Errorf("a batch of one call consumed %d bytes, not %d", got, len(output))
	}
	return run, len(output), nil
}
