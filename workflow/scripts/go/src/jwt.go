package main

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// jwtInputs holds what suites jwt, percall, tokensize and transfer prepare once.
type jwtInputs struct {
	claims  map[string]*claimsInput
	keys    map[string]*jwsKeys
	checked map[string]checkedPool
}

type checkedPool struct {
	tokens []string // one per record, each verified into its record's claims
	err    error
}

// claimsInput is an input file parsed: one claims object, or records (JSON Lines).
type claimsInput struct {
	records [][]byte // each record's bytes (the whole file for claims)
	claims  []map[string]any
	native  []any // each record's claims in the library's form (jwsLibrary.claims), made once
	size    int   // input_bytes: the file's size, or the records' mean size
}

func newJWTInputs() *jwtInputs {
	return &jwtInputs{map[string]*claimsInput{}, map[string]*jwsKeys{}, map[string]checkedPool{}}
}

func (in *jwtInputs) input(cs *cellSpec) (*claimsInput, error) {
	key := cs.InputKind + ":" + cs.InputFile
	if found, ok := in.claims[key]; ok {
		return found, nil
	}
	parsed := &claimsInput{}
	if cs.InputKind == "records" {
		records, lines, err := readRecords(cs.InputFile)
		if err != nil {
			return nil, err
		}
		parsed.claims, parsed.records = records, lines
	} else {
		claims, raw, err := readClaims(cs.InputFile)
		if err != nil {
			return nil, err
		}
		parsed.claims, parsed.records = []map[string]any{claims}, [][]byte{raw}
	}
	total := 0
	for i, claims := range parsed.claims {
		total += len(parsed.records[i])
		what := cs.InputFile
		if cs.InputKind == "records" {
			what = fmt.Sprintf("%s:%d", cs.InputFile, i+1)
		}
		native, err := signable(claims, what)
		if err != nil {
			return nil, err
		}
		parsed.native = append(parsed.native, native)
	}
	parsed.size = roundedMean(total, len(parsed.records))
	in.claims[key] = parsed
	return parsed, nil
}

// roundedMean is the mean rounded to the nearest integer, halves up.
func roundedMean(sum, n int) int {
	return (2*sum + n) / (2 * n)
}

func (in *jwtInputs) keysOf(cs *cellSpec) (*jwsKeys, error) {
	key := strings.Join([]string{cs.Algorithm, cs.PrivateKey, cs.PublicKey}, "\x00")
	if found, ok := in.keys[key]; ok {
		return found, nil
	}
	keys, err := loadJWSKeys(cs.Algorithm, cs.PrivateKey, cs.PublicKey)
	if err != nil {
		return nil, err
	}
	in.keys[key] = keys
	return keys, nil
}

// preparedJWT is a checked jwt cell; next is its next call's record.
type preparedJWT struct {
	keys   *jwsKeys
	input  *claimsInput
	tokens []string
	next   int
}

// prepare parses a cell's input and keys and runs the checks before timing (once per
// algorithm, keys and input).
func (in *jwtInputs) prepare(cs *cellSpec) (*preparedJWT, *cell, error) {
	input, err := in.input(cs)
	if err != nil {
		return nil, nil, err
	}
	entry := &cell{inputBytes: input.size}
	keys, err := in.keysOf(cs)
	switch {
	case errors.Is(err, errUnsupported):
		entry.status, entry.reason = "unsupported", err.Error()
		return nil, entry, nil
	case err != nil:
		return nil, nil, err
	}
	checkKey := strings.Join([]string{cs.Algorithm, cs.PrivateKey, cs.PublicKey, cs.InputFile}, "\x00")
	pool, done := in.checked[checkKey]
	if !done {
		if pool.err = checkJWS(keys, input.claims[0], input.native[0]); pool.err == nil {
			pool.tokens, pool.err = signedPool(keys, input)
		}
		in.checked[checkKey] = pool
	}
	if pool.err != nil {
		return nil, checked(entry, pool.err), nil
	}
	total := 0
	for _, token := range pool.tokens {
		total += len(token)
	}
	entry.outputBytes, entry.passLength = roundedMean(total, len(pool.tokens)), int64(len(pool.tokens))
	return &preparedJWT{keys: keys, input: input, tokens: pool.tokens}, entry, nil
}

// signedPool signs every record once; each token must verify into its record's claims.
func signedPool(keys *jwsKeys, input *claimsInput) ([]string, error) {
	tokens := make([]string, len(input.claims))
	for i, record := range input.claims {
		token, err := keys.signer.sign(input.native[i])
		if err != nil {
			return nil, fmt.Errorf("record %d: sign: %v", i+1, err)
		}
		got, err := keys.verifier.verify(token)
		if err != nil || !reflect.DeepEqual(library.claimsMap(got), record) {
			return nil, fmt.Errorf("record %d: its token does not verify into its claims (%v)", i+1, err)
		}
		tokens[i] = token
	}
	return tokens, nil
}

// step is one call of the cell's operation on the next record, then moves on (wrapping);
// it returns its output's size (a token's length; 1 for the claims of a verify or decode).
func (p *preparedJWT) step(operation string) (size int, err error) {
	i := p.next
	if p.next++; p.next == len(p.input.native) {
		p.next = 0
	}
	var claims any
	switch operation {
	case "sign":
		token, err := p.keys.signer.sign(p.input.native[i])
		return len(token), err
	case "verify":
		claims, err = p.keys.verifier.verify(p.tokens[i])
	default:
		claims, err = p.keys.verifier.decode(p.tokens[i])
	}
	if claims != nil {
		size = 1
	}
	return size, err
}

// batch: calls go through the records in order, carried over from batch to batch.
func (p *preparedJWT) batch(operation string) batchFunc {
	return func(n int64) int64 {
		var folded int64
		for ; n > 0; n-- {
			size, err := p.step(operation)
			if err != nil {
				panic(fmt.Sprintf("%s failed while timed: %v", operation, err))
			}
			folded += int64(size)
		}
		return folded
	}
}

// benchmark is testing.Benchmark's b.Loop around the very call of the cell's batch. A
// failed call ends the run (b.FailNow; a panic would end the worker).
func (p *preparedJWT) benchmark(operation string) func(b *testing.B) {
	return func(b *testing.B) {
		for b.Loop() {
			if _, err := p.step(operation); err != nil {
				nativeFailure = fmt.Errorf("%s failed while timed: %v", operation, err)
				b.FailNow()
			}
		}
	}
}

// prepareJWT prepares and checks the cells of suites jwt, percall and tokensize.
func prepareJWT(spec *benchSpec) (cells, error) {
	inputs := newJWTInputs()
	var prepared cells
	for _, cs := range spec.Cells {
		p, entry, err := inputs.prepare(cs)
		if err != nil {
			return nil, err
		}
		if entry.status == "" {
			entry.run, entry.native = p.batch(cs.Operation), p.benchmark(cs.Operation)
			if spec.Suite == "tokensize" {
				entry.after = p.sizes
			}
		}
		prepared = append(prepared, entry)
	}
	return prepared, nil
}

// sizes are a tokensize batch of one call's answer fields: the record it signed, the token.
func (p *preparedJWT) sizes(n, folded int64) (map[string]any, error) {
	if n != 1 {
		return nil, nil
	}
	last := (p.next + len(p.tokens) - 1) % len(p.tokens)
	return map[string]any{"input_bytes": len(p.input.records[last]), "output_bytes": folded}, nil
}
