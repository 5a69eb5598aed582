package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// benchSpec is a bench spec (workflow/scripts/README.md); every problem with one is a
// usage error naming the spec file and the field.
type benchSpec struct {
	path     string
	pairs    [][2]int        // Pairs, checked
	Format   string          `json:"format"`
	Language string          `json:"language"`
	Suite    string          `json:"suite"`
	Timing   *timingSpec     `json:"timing"`
	Cells    []*cellSpec     `json:"cells"`
	Pairs    [][]int         `json:"pairs"` // the stopping rule: [i, j] indexes into Cells
	Transfer *transferConfig `json:"transfer"`
	Percall  *percallConfig  `json:"percall"`
	Keygen   *keygenConfig   `json:"keygen"`
	// the crosscheck command's own object (checkCrosscheck); bench ignores it
	Crosscheck *crosscheckConfig `json:"crosscheck"`
}

type timingSpec struct {
	WarmupSeconds        *float64 `json:"warmup_seconds"`
	Samples              *int     `json:"samples"`
	TargetSampleSeconds  *float64 `json:"target_sample_seconds"`
	MaxCellSeconds       *float64 `json:"max_cell_seconds"`
	WarmupMaxSeconds     *float64 `json:"warmup_max_seconds"`
	ProcessWarmupSeconds *float64 `json:"process_warmup_seconds"` // the warm-up, default 0
	SteadyWindow         *int     `json:"steady_window"`
	SteadyTolerance      *float64 `json:"steady_tolerance"`
	MinSamples           *int     `json:"min_samples"`   // the stopping rule, default 20
	TargetCIPct          *float64 `json:"target_ci_pct"` // the stopping rule, default 1.0; 0 = off
	Confidence           *float64 `json:"confidence"`    // the stopping rule, default 0.95
}

type transferConfig struct {
	Trials                *int     `json:"trials"`
	WarmupTrials          *int     `json:"warmup_trials"`
	RequestTimeoutSeconds *float64 `json:"request_timeout_seconds"`
}

type percallConfig struct {
	WarmupCalls *int `json:"warmup_calls"`
	Calls       *int `json:"calls"`
}

type keygenConfig struct {
	Iterations        *int     `json:"iterations"`
	TargetCellSeconds *float64 `json:"target_cell_seconds"`
	MaxIterations     *int     `json:"max_iterations"`
	MaxCellSeconds    *float64 `json:"max_cell_seconds"`
}

type crosscheckConfig struct {
	Alternations *int     `json:"alternations"`
	BlockSeconds *float64 `json:"block_seconds"`
}

type cellSpec struct {
	Operation      string            `json:"operation"`
	Algorithm      string            `json:"algorithm"`
	KeyBits        *int              `json:"key_bits"`
	PrivateKey     string            `json:"private_key"`
	PublicKey      string            `json:"public_key"`
	Input          string            `json:"input"`
	InputFile      string            `json:"input_file"`
	InputKind      string            `json:"input_kind"`
	Implementation string            `json:"implementation"`
	Message        []string          `json:"message"`
	MessageBytes   *int              `json:"message_bytes"`
	KnownAnswer    map[string]string `json:"known_answer"`
	Family         string            `json:"family"`
}

// suiteShape is what a suite's cells may hold.
type suiteShape struct {
	operations []string
	inputKinds []string // for cells with an input_file (none: the suite's own inputs)
	timing     []string // timing fields the suite needs
}

var calibrated = []string{"warmup_seconds", "samples", "target_sample_seconds", "max_cell_seconds"}

var suites = map[string]suiteShape{
	"jwt":       {[]string{"sign", "verify", "decode"}, []string{"claims", "records"}, calibrated},
	"tokensize": {[]string{"sign"}, []string{"records"}, []string{"max_cell_seconds"}},
	"transfer":  {[]string{"request-response"}, []string{"claims"}, []string{"max_cell_seconds"}},
	"percall":   {[]string{"sign", "verify", "decode"}, []string{"claims"}, []string{"max_cell_seconds"}},
	"hash":      {[]string{"hex-digest", "generate", "digest"}, nil, calibrated},
	"primitive": {[]string{"digest", "mac", "encrypt", "sign", "verify"}, []string{"bytes"}, calibrated},
	"keygen":    {[]string{"keygen+sign+verify", "keygen", "sign", "verify"}, nil, calibrated},
	"harness":   {[]string{"empty", "trivial"}, nil, calibrated},
}

func readSpec(path string) (*benchSpec, error) {
	data, err := readInput(path)
	if err != nil {
		return nil, err
	}
	spec := &benchSpec{path: path}
	decoder := json.NewDecoder(bytes.NewReader(data))
	if err := decoder.Decode(spec); err != nil {
		return nil, usagef("spec %s: %v", path, err)
	}
	if err := spec.check(); err != nil {
		return nil, usagef("spec %s: %v", path, err)
	}
	return spec, nil
}

func (s *benchSpec) check() error {
	if s.Format != "jwtbench-spec/1" {
		return fmt.Errorf("format %q is not jwtbench-spec/1", s.Format)
	}
	shape, known := suites[s.Suite]
	if !known {
		return fmt.Errorf("suite %q is not one of jwt, tokensize, transfer, hash, percall, primitive, harness, keygen", s.Suite)
	}
	if s.Timing == nil {
		return fmt.Errorf("lacks 'timing'")
	}
	if err := s.Timing.check(shape.timing); err != nil {
		return err
	}
	if err := s.checkSection(); err != nil {
		return err
	}
	if len(s.Cells) == 0 {
		return fmt.Errorf("has no cells")
	}
	for i, cell := range s.Cells {
		if cell == nil {
			return fmt.Errorf("cells[%d] is not an object", i)
		}
		if err := cell.check(s.Suite, shape); err != nil {
			return fmt.Errorf("cells[%d]%s", i, err)
		}
	}
	pairs, err := checkPairs(s.Pairs, len(s.Cells), "cells")
	s.pairs = pairs
	return err
}

// checkCrosscheck holds a spec to what `crosscheck` takes: suite jwt, cells that sign or
// verify, and the crosscheck object with alternations >= 1 and block_seconds > 0.
func (s *benchSpec) checkCrosscheck() error {
	if s.Suite != "jwt" {
		return fmt.Errorf("suite %q is not jwt (crosscheck times suite jwt's cells)", s.Suite)
	}
	c := s.Crosscheck
	if c == nil || c.Alternations == nil || c.BlockSeconds == nil {
		return fmt.Errorf("crosscheck needs the section 'crosscheck' with alternations and block_seconds")
	}
	if *c.Alternations < 1 || !(*c.BlockSeconds > 0) {
		return fmt.Errorf("crosscheck: alternations >= 1, block_seconds > 0")
	}
	for i, cell := range s.Cells {
		if cell.Operation != "sign" && cell.Operation != "verify" {
			return fmt.Errorf("cells[%d].operation %q is not one crosscheck times: sign, verify", i, cell.Operation)
		}
	}
	return nil
}

func (t *timingSpec) check(needed []string) error {
	present := map[string]bool{
		"warmup_seconds": t.WarmupSeconds != nil, "samples": t.Samples != nil,
		"target_sample_seconds": t.TargetSampleSeconds != nil, "max_cell_seconds": t.MaxCellSeconds != nil,
	}
	for _, field := range needed {
		if !present[field] {
			return fmt.Errorf("timing lacks %q", field)
		}
	}
	checks := []struct {
		field    string
		value    *float64
		least    float64
		included bool
	}{
		{"warmup_seconds", t.WarmupSeconds, 0, true},
		{"target_sample_seconds", t.TargetSampleSeconds, 0, false},
		{"max_cell_seconds", t.MaxCellSeconds, 0, false},
		{"warmup_max_seconds", t.WarmupMaxSeconds, 0, true},
		{"process_warmup_seconds", t.ProcessWarmupSeconds, 0, true},
		{"steady_tolerance", t.SteadyTolerance, 0, false},
		{"target_ci_pct", t.TargetCIPct, 0, true},
	}
	for _, c := range checks {
		if c.value != nil && (*c.value < c.least || (*c.value == c.least && !c.included)) {
			return fmt.Errorf("timing.%s = %v is out of range", c.field, *c.value)
		}
	}
	if t.Samples != nil && (*t.Samples < 1 || *t.Samples > maxSamples) {
		return fmt.Errorf("timing.samples = %d must be from 1 to %d", *t.Samples, maxSamples)
	}
	if t.MinSamples != nil && *t.MinSamples < 1 {
		return fmt.Errorf("timing.min_samples = %d must be >= 1", *t.MinSamples)
	}
	if t.Confidence != nil && !(*t.Confidence > 0 && *t.Confidence < 1) {
		return fmt.Errorf("timing.confidence = %v must be between 0 and 1", *t.Confidence)
	}
	if t.SteadyWindow != nil && *t.SteadyWindow < 2 {
		return fmt.Errorf("timing.steady_window = %d must be >= 2", *t.SteadyWindow)
	}
	return nil
}

func (s *benchSpec) checkSection() error {
	switch s.Suite {
	case "transfer":
		t := s.Transfer
		if t == nil || t.Trials == nil || t.WarmupTrials == nil || t.RequestTimeoutSeconds == nil {
			return fmt.Errorf("suite transfer needs the section 'transfer' with trials, warmup_trials, request_timeout_seconds")
		}
		if *t.Trials < 1 || *t.WarmupTrials < 0 || *t.RequestTimeoutSeconds <= 0 {
			return fmt.Errorf("transfer: trials >= 1, warmup_trials >= 0, request_timeout_seconds > 0")
		}
	case "percall":
		p := s.Percall
		if p == nil || p.WarmupCalls == nil || p.Calls == nil {
			return fmt.Errorf("suite percall needs the section 'percall' with warmup_calls and calls")
		}
		if *p.WarmupCalls < 0 || *p.Calls < 1 {
			return fmt.Errorf("percall: warmup_calls >= 0, calls >= 1")
		}
	case "keygen":
		k := s.Keygen
		if k == nil || k.Iterations == nil || k.TargetCellSeconds == nil || k.MaxIterations == nil || k.MaxCellSeconds == nil {
			return fmt.Errorf("suite keygen needs the section 'keygen' with iterations, target_cell_seconds, max_iterations, max_cell_seconds")
		}
		if *k.Iterations < 1 || *k.MaxIterations < 1 || *k.TargetCellSeconds < 0 || *k.MaxCellSeconds <= 0 {
			return fmt.Errorf("keygen: iterations >= 1, max_iterations >= 1, target_cell_seconds >= 0, max_cell_seconds > 0")
		}
	}
	return nil
}

var (
	hashAlgorithms = []string{"MD5", "SHA-1", "SHA-256", "SHA-512"}
	messageParts   = []string{"cached-uuid", "fresh-uuid", "time-ms"}
	// suite primitive: operation -> its algorithms
	primitiveAlgorithms = map[string][]string{
		"digest":  {"SHA-256", "SHA-512"},
		"mac":     {"HMAC-SHA256"},
		"encrypt": {"AES-256-GCM"},
		"sign":    {"RSA-SHA256", "ECDSA-SHA256", "Ed25519"},
		"verify":  {"RSA-SHA256", "ECDSA-SHA256", "Ed25519"},
	}
	knownAnswerFields = map[string][]string{
		"digest":  {"message_hex", "output_hex"},
		"mac":     {"key_hex", "message_hex", "output_hex"},
		"encrypt": {"key_hex", "nonce_hex", "message_hex", "output_hex"},
	}
	keygenAlgorithms = map[string][]string{
		"RSA":   {"RSA-SHA256", "RSA-SHA512"},
		"ECDSA": {"ECDSA-SHA256", "ECDSA-SHA512"},
	}
)

func (c *cellSpec) check(suite string, shape suiteShape) error {
	for field, value := range map[string]string{"operation": c.Operation, "algorithm": c.Algorithm, "input": c.Input} {
		if value == "" {
			return fmt.Errorf(" lacks %q", field)
		}
	}
	if !slices.Contains(shape.operations, c.Operation) {
		return fmt.Errorf(".operation %q is not one of suite %s's: %s", c.Operation, suite, strings.Join(shape.operations, ", "))
	}
	if c.KeyBits == nil {
		return fmt.Errorf(" lacks 'key_bits'")
	}
	if want := implementationFor(suite); c.Implementation != "" && c.Implementation != want {
		return fmt.Errorf(".implementation %q is not one this driver has for suite %s (%s)", c.Implementation, suite, want)
	}
	switch suite {
	case "hash":
		return c.checkHash()
	case "primitive":
		return c.checkPrimitive()
	case "keygen":
		return c.checkKeygen()
	case "harness":
		return c.checkHarness()
	}
	if c.PrivateKey == "" || c.PublicKey == "" || c.InputFile == "" {
		return fmt.Errorf(" needs private_key, public_key and input_file")
	}
	if c.InputKind == "" {
		c.InputKind = "claims"
	}
	if !slices.Contains(shape.inputKinds, c.InputKind) {
		return fmt.Errorf(".input_kind %q is not one of suite %s's: %s", c.InputKind, suite, strings.Join(shape.inputKinds, ", "))
	}
	return nil
}

func (c *cellSpec) checkHash() error {
	if c.Operation == "generate" {
		if c.Algorithm != "none" {
			return fmt.Errorf(".algorithm of a generate cell must be none, not %q", c.Algorithm)
		}
	} else if !slices.Contains(hashAlgorithms, c.Algorithm) {
		return fmt.Errorf(".algorithm %q is not one of %s", c.Algorithm, strings.Join(hashAlgorithms, ", "))
	}
	if c.Operation == "digest" {
		if c.MessageBytes == nil || *c.MessageBytes < 0 {
			return fmt.Errorf(".message_bytes must be an integer >= 0")
		}
	} else {
		if len(c.Message) == 0 {
			return fmt.Errorf(".message must list its parts")
		}
		for _, part := range c.Message {
			if !slices.Contains(messageParts, part) {
				return fmt.Errorf(".message part %q is not one of %s", part, strings.Join(messageParts, ", "))
			}
		}
	}
	if c.Operation != "generate" {
		if _, ok := c.KnownAnswer["digest_hex"]; !ok {
			return fmt.Errorf(".known_answer needs digest_hex")
		}
	}
	return nil
}

func (c *cellSpec) checkPrimitive() error {
	if !slices.Contains(primitiveAlgorithms[c.Operation], c.Algorithm) {
		return fmt.Errorf(".algorithm %q is not one of %s's: %s", c.Algorithm, c.Operation, strings.Join(primitiveAlgorithms[c.Operation], ", "))
	}
	if c.InputFile != "" {
		if c.InputKind != "bytes" {
			return fmt.Errorf(".input_kind must be bytes with an input_file")
		}
	} else if c.MessageBytes == nil || *c.MessageBytes < 0 {
		return fmt.Errorf(" needs message_bytes (an integer >= 0) or input_file")
	}
	if c.Operation != "digest" && (c.PrivateKey == "" || c.PublicKey == "") {
		return fmt.Errorf(" needs private_key and public_key")
	}
	for _, field := range knownAnswerFields[c.Operation] {
		value, ok := c.KnownAnswer[field]
		if _, err := hex.DecodeString(value); !ok || err != nil || (value == "" && field != "message_hex") {
			return fmt.Errorf(".known_answer.%s is not a hex string", field)
		}
	}
	return nil
}

func (c *cellSpec) checkKeygen() error {
	algorithms, known := keygenAlgorithms[c.Family]
	if !known {
		return fmt.Errorf(".family %q is not RSA or ECDSA", c.Family)
	}
	if !slices.Contains(algorithms, c.Algorithm) {
		return fmt.Errorf(".algorithm %q is not one of %s's: %s", c.Algorithm, c.Family, strings.Join(algorithms, ", "))
	}
	if c.MessageBytes == nil || *c.MessageBytes < 0 {
		return fmt.Errorf(".message_bytes must be an integer >= 0")
	}
	if c.PrivateKey == "" || c.PublicKey == "" {
		return fmt.Errorf(" needs private_key and public_key")
	}
	if c.Family == "ECDSA" && !slices.Contains([]int{256, 384, 521}, *c.KeyBits) {
		return fmt.Errorf(".key_bits %d is not a curve this driver has (256, 384, 521)", *c.KeyBits)
	}
	if c.Family == "RSA" && *c.KeyBits < 1024 {
		return fmt.Errorf(".key_bits %d is too small for RSA", *c.KeyBits)
	}
	return nil
}

// checkHarness: a harness cell has algorithm none and key_bits 0 (no key, no input file).
func (c *cellSpec) checkHarness() error {
	if c.Algorithm != "none" {
		return fmt.Errorf(".algorithm of a harness cell must be none, not %q", c.Algorithm)
	}
	if *c.KeyBits != 0 {
		return fmt.Errorf(".key_bits of a harness cell must be 0, not %d", *c.KeyBits)
	}
	return nil
}

// implementationFor names what does a suite's work (the rows' implementation column).
func implementationFor(suite string) string {
	switch suite {
	case "hash", "primitive", "keygen":
		return stdlibCrypto
	}
	return library.name()
}
