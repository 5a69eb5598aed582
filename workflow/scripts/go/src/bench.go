package main

import (
	"fmt"
	"strings"
)

func benchCommand(args []string) (err error) {
	// A timed call that fails after its cell's check (it cannot, short of a library bug)
	// panics in the batch loop; the driver then ends with exit 1, not Go's panic status 2.
	defer func() {
		if problem := recover(); problem != nil {
			err = fmt.Errorf("%v", problem)
		}
	}()
	flags, err := parseFlags("bench", args, "spec", "out")
	if err != nil {
		return err
	}
	spec, err := readSpec(flags["spec"])
	if err != nil {
		return err
	}
	out, err := createRows(flags["out"])
	if err != nil {
		return err
	}
	suitesRun := map[string]func(*benchSpec, *rowWriter) error{
		"jwt":       benched(prepareJWT),
		"percall":   benchPercall,
		"tokensize": benchTokensize,
		"transfer":  benchTransfer,
		"hash":      benched(prepareHash),
		"primitive": benched(preparePrimitive),
		"keygen":    benchKeygen,
		"harness":   benched(prepareHarness),
	}
	if err := suitesRun[spec.Suite](spec, out); err != nil {
		out.close()
		return err
	}
	progress("sink %d", sink)
	return out.close()
}

// jwtInputs holds what suites jwt, percall, tokensize and transfer prepare once: the
// parsed inputs, the parsed keys, each algorithm-and-key's check, the token pools.
type jwtInputs struct {
	claims  map[string]*claimsInput
	keys    map[string]*jwsKeys
	checked map[string]error
	pools   map[string][]string
}

// claimsInput is an input file parsed: one claims object, or records (JSON Lines).
type claimsInput struct {
	records [][]byte // each record's bytes (the whole file for claims)
	claims  []map[string]any
	native  []any // each record's claims in the library's form (jwsLibrary.claims), made once
	size    int   // input_bytes: the file's size, or the records' mean size
}

func newJWTInputs() *jwtInputs {
	return &jwtInputs{map[string]*claimsInput{}, map[string]*jwsKeys{}, map[string]error{}, map[string][]string{}}
}

func (in *jwtInputs) input(cell *cellSpec) (*claimsInput, error) {
	key := cell.InputKind + ":" + cell.InputFile
	if found, ok := in.claims[key]; ok {
		return found, nil
	}
	parsed := &claimsInput{}
	if cell.InputKind == "records" {
		records, lines, err := readRecords(cell.InputFile)
		if err != nil {
			return nil, err
		}
		total := 0
		for i, record := range records {
			parsed.claims = append(parsed.claims, record)
			total += len(lines[i])
		}
		parsed.records = lines
		parsed.size = roundedMean(total, len(lines))
	} else {
		claims, raw, err := readClaims(cell.InputFile)
		if err != nil {
			return nil, err
		}
		parsed.claims, parsed.records, parsed.size = []map[string]any{claims}, [][]byte{raw}, len(raw)
	}
	for i, claims := range parsed.claims {
		what := cell.InputFile
		if cell.InputKind == "records" {
			what = fmt.Sprintf("%s:%d", cell.InputFile, i+1)
		}
		native, err := signable(claims, what)
		if err != nil {
			return nil, err
		}
		parsed.native = append(parsed.native, native)
	}
	in.claims[key] = parsed
	return parsed, nil
}

// roundedMean is the mean rounded to the nearest integer, halves up.
func roundedMean(sum, n int) int {
	return (2*sum + n) / (2 * n)
}

func (in *jwtInputs) keysOf(cell *cellSpec) (*jwsKeys, error) {
	key := strings.Join([]string{cell.Algorithm, cell.PrivateKey, cell.PublicKey}, "\x00")
	if found, ok := in.keys[key]; ok {
		return found, nil
	}
	keys, err := loadJWSKeys(cell.Algorithm, cell.PrivateKey, cell.PublicKey)
	if err != nil {
		return nil, err
	}
	in.keys[key] = keys
	return keys, nil
}

// preparedJWT is a checked jwt cell: its keys, input and token pool.
type preparedJWT struct {
	keys   *jwsKeys
	input  *claimsInput
	tokens []string // one per record (one for claims)
	label  cellLabel
	reason string // why the cell is not timed (prepare's status unsupported or failed)
}

// prepare parses a cell's input and keys and runs the checks before timing; it returns the
// cell's status when it cannot be timed ("unsupported", "failed") and a usage error for
// a bad input.
func (in *jwtInputs) prepare(spec *benchSpec, cell *cellSpec) (*preparedJWT, string, error) {
	input, err := in.input(cell)
	if err != nil {
		return nil, "", err
	}
	p := &preparedJWT{input: input, label: cellLabel{
		implementation: library.name(), version: libraryVersion(), suite: spec.Suite, operation: cell.Operation,
		algorithm: cell.Algorithm, input: cell.Input, keyBits: *cell.KeyBits, inputBytes: input.size,
	}}
	p.keys, err = in.keysOf(cell)
	switch {
	case isUnsupported(err):
		progress("%s: unsupported: %v", describe(p.label), err)
		p.reason = err.Error()
		return p, "unsupported", nil
	case err != nil:
		return nil, "", err
	}
	checkKey := strings.Join([]string{cell.Algorithm, cell.PrivateKey, cell.PublicKey, cell.InputFile}, "\x00")
	checkErr, done := in.checked[checkKey]
	if !done {
		checkErr = checkJWS(p.keys, input.claims[0], input.native[0])
		if checkErr == nil {
			in.pools[checkKey], checkErr = signedPool(p.keys, input)
		}
		in.checked[checkKey] = checkErr
	}
	if checkErr != nil {
		progress("%s: check failed: %v", describe(p.label), checkErr)
		p.reason = checkErr.Error()
		return p, "failed", nil
	}
	p.tokens = in.pools[checkKey]
	return p, "", nil
}

// signedPool signs every record once; each token must verify into its record's claims.
func signedPool(keys *jwsKeys, input *claimsInput) ([]string, error) {
	tokens := make([]string, len(input.claims))
	for i, record := range input.claims {
		token, err := keys.sign(input.native[i])
		if err != nil {
			return nil, fmt.Errorf("record %d: sign: %v", i+1, err)
		}
		got, err := keys.verifier.verify(token)
		if err != nil || !sameClaims(library.claimsMap(got), record) {
			return nil, fmt.Errorf("record %d: its token does not verify into its claims (%v)", i+1, err)
		}
		tokens[i] = token
	}
	return tokens, nil
}

func (p *preparedJWT) meanTokenBytes() int {
	total := 0
	for _, token := range p.tokens {
		total += len(token)
	}
	return roundedMean(total, len(p.tokens))
}

// call is one call of the cell's operation on record i; it returns its output's size (a
// token's length; 1 for the claims object of a verify or decode).
func (p *preparedJWT) call(operation string, i int) (int, error) {
	switch operation {
	case "sign":
		token, err := p.keys.sign(p.input.native[i])
		return len(token), err
	case "verify":
		claims, err := p.keys.verifier.verify(p.tokens[i])
		return present(claims), err
	default:
		claims, err := p.keys.verifier.decode(p.tokens[i])
		return present(claims), err
	}
}

// present folds a claims object: 1, or 0 for none.
func present(claims any) int {
	if claims == nil {
		return 0
	}
	return 1
}

// batch is the cell's batch function: calls go through the records in order, the
// position carried over from batch to batch.
func (p *preparedJWT) batch(operation string) batchFunc {
	position, count := 0, len(p.input.claims)
	return func(n int64) int64 {
		var folded int64
		for ; n > 0; n-- {
			size, err := p.call(operation, position)
			if err != nil {
				panic(fmt.Sprintf("%s failed while timed: %v", operation, err))
			}
			folded += int64(size)
			if position++; position == count {
				position = 0
			}
		}
		return folded
	}
}

// prepareJWT prepares and checks suite jwt's cells; a records cell's pass is its records.
func prepareJWT(spec *benchSpec) (checkedCells, error) {
	inputs := newJWTInputs()
	var cells checkedCells
	for index, cell := range spec.Cells {
		prepared, status, err := inputs.prepare(spec, cell)
		if err != nil {
			return nil, err
		}
		if status != "" {
			cells = append(cells, checkedCell{&timedCell{index: index, label: prepared.label}, status, prepared.reason})
			continue
		}
		timer := &calibratedCell{run: prepared.batch(cell.Operation), passLength: int64(len(prepared.tokens))}
		cells = append(cells, checkedCell{timedCell: &timedCell{index, prepared.label, prepared.meanTokenBytes(), timer}})
	}
	return cells, nil
}
