package main

import (
	"encoding/json"
	"flag"
	"os"
	"slices"
	"testing"
)

// crosscheckCommand times the library's sign (golang-jwt's for the go driver) with the standard library's benchmark harness
// (testing.Benchmark: its own b.N calibration), sharing no timing code with `bench`, so
// the pipeline's cross-check can compare the two (workflow/scripts/rules/crosscheck_harness.py).
// Usage: jwtbench-go crosscheck --alg ALG --key FILE --payload FILE   (one JSON object)
func crosscheckCommand(args []string) error {
	const repeats = 7
	alg, signer, claims, err := signingInputs("crosscheck", args)
	if err != nil {
		return err
	}
	testing.Init()
	if err := flag.Set("test.benchtime", "200ms"); err != nil {
		return err
	}
	perOp := make([]float64, 0, repeats)
	for range repeats {
		result := testing.Benchmark(func(b *testing.B) {
			for b.Loop() {
				if _, err := signer.sign(claims); err != nil {
					b.Fatal(err)
				}
			}
		})
		perOp = append(perOp, float64(result.T.Nanoseconds())/float64(result.N))
	}
	slices.Sort(perOp)
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"language": "go", "harness": "testing.Benchmark", "harness_version": goVersionNumber(),
		"operation": "sign", "algorithm": alg, "ns_per_op": perOp[len(perOp)/2],
		"ns_per_op_min": perOp[0], "samples": repeats,
	})
}
