package main

import "encoding/json"

// benchSpec is what the worker reads of a spec (workflow/scripts/README.md, "Specs"); the
// conductor's Python has validated it.
type benchSpec struct {
	Suite    string      `json:"suite"`
	Cells    []*cellSpec `json:"cells"`
	Transfer *struct {
		RequestTimeoutSeconds float64 `json:"request_timeout_seconds"`
	} `json:"transfer"`
	Crosscheck json.RawMessage `json:"crosscheck"` // a cross-check spec's (suite jwt)
}

type cellSpec struct {
	Operation    string            `json:"operation"`
	Algorithm    string            `json:"algorithm"`
	KeyBits      int               `json:"key_bits"`
	PrivateKey   string            `json:"private_key"`
	PublicKey    string            `json:"public_key"`
	InputFile    string            `json:"input_file"`
	InputKind    string            `json:"input_kind"`
	Message      []string          `json:"message"`
	MessageBytes int               `json:"message_bytes"`
	KnownAnswer  map[string]string `json:"known_answer"`
	Family       string            `json:"family"`
}

// readSpec reads a spec; one it cannot read is an input error (exit 2) naming it.
func readSpec(path string) (*benchSpec, error) {
	data, err := readInput(path)
	if err != nil {
		return nil, err
	}
	spec := &benchSpec{}
	if err := json.Unmarshal(data, spec); err != nil {
		return nil, usagef("spec %s: %v", path, err)
	}
	return spec, nil
}
