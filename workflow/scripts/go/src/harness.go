package main

import (
	"crypto/subtle"
	"errors"
	"fmt"
)

// Suite harness: what the timing loop itself costs. A cell's call is a signer that suite
// jwt's sign batch (preparedJWT.batch) calls on its one input, so the loop, the clock and
// the sink are those of a sign cell.

// emptySigner is the signer's shape doing nothing: it returns "".
type emptySigner struct{}

func (emptySigner) sign(any) (string, error) { return "", nil }

// trivialSigner compares two equal 32-byte buffers made before timing: "1" when equal.
type trivialSigner struct{ left, right []byte }

func (s trivialSigner) sign(any) (string, error) {
	if subtle.ConstantTimeCompare(s.left, s.right) == 1 {
		return "1", nil
	}
	return "0", nil
}

// prepareHarness prepares and checks suite harness's cells.
func prepareHarness(spec *benchSpec) (cells, error) {
	var prepared cells
	for _, cs := range spec.Cells {
		var call signer = emptySigner{}
		var err error
		if cs.Operation == "trivial" {
			differing := patternBytes(32)
			differing[31] ^= 1
			call = trivialSigner{patternBytes(32), patternBytes(32)}
			if output, _ := (trivialSigner{patternBytes(32), differing}).sign(nil); output != "0" {
				err = errors.New("subtle.ConstantTimeCompare does not tell unequal 32-byte buffers")
			}
		}
		output, _ := call.sign(nil)
		if cs.Operation == "trivial" && output != "1" {
			err = fmt.Errorf("the timed call returned %q, not \"1\" (equal)", output)
		}
		one := &preparedJWT{keys: &jwsKeys{signer: call}, input: &claimsInput{native: []any{nil}}}
		run := one.batch("sign")
		if err == nil {
			err = oneCall(run, len(output))
		}
		prepared.add(0, run, len(output), err)
	}
	return prepared, nil
}
