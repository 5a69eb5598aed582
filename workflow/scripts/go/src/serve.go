package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"
)

// `serve --spec FILE`: the worker of the conductor's protocol, jwtbench-worker/1
// (workflow/scripts/README.md, "serve"; schema: workflow/schemas/protocol/worker.schema.yaml).
// The cells are prepared and checked by bench's own code (prepareJWT, prepareHash, ...); then
// the worker only runs the batches it is asked for, each timed by bench's timeBatch on the
// cell's very batch. The conductor decides everything else: warm-up, calibration, rounds,
// when a cell is done.

const protocol = "jwtbench-worker/1"

// servedSuites are the suites serve times (driver.yaml's conducted), each prepared as bench's.
var servedSuites = map[string]func(*benchSpec) (checkedCells, error){
	"jwt":       prepareJWT,
	"hash":      prepareHash,
	"primitive": preparePrimitive,
	"harness":   prepareHarness,
}

// cellEntry is a cell's entry in the hello line, as its raw rows name it.
type cellEntry struct {
	Status                string  `json:"status"`
	Implementation        string  `json:"implementation"`
	ImplementationVersion string  `json:"implementation_version"`
	InputBytes            int     `json:"input_bytes"`
	OutputBytes           *int    `json:"output_bytes,omitempty"`
	PassLength            int64   `json:"pass_length,omitempty"`
	Reason                *string `json:"reason,omitempty"`
}

type hello struct {
	Protocol  string      `json:"protocol"`
	Cells     []cellEntry `json:"cells"`
	Reference cellEntry   `json:"reference"`
}

// entryOf is a timed cell's entry: what its rows carry, and the calls of one pass.
func entryOf(label cellLabel, outputBytes int, passLength int64) cellEntry {
	return cellEntry{
		Status: "ok", Implementation: label.implementation, ImplementationVersion: label.version,
		InputBytes: label.inputBytes, OutputBytes: &outputBytes, PassLength: passLength,
	}
}

// request is one line from the conductor: batches to run, or the end.
type request struct {
	Batches [][]json.RawMessage `json:"batches"`
	End     bool                `json:"end"`
}

func serveCommand(args []string) (err error) {
	// A panic while preparing ends the worker with exit 1 (bench's rule); one in a batch is
	// that batch's error answer (runServed).
	defer func() {
		if problem := recover(); problem != nil {
			err = fmt.Errorf("%v", problem)
		}
	}()
	flags, err := parseFlags("serve", args, "spec")
	if err != nil {
		return err
	}
	spec, err := readSpec(flags["spec"])
	if err != nil {
		return err
	}
	prepare, served := servedSuites[spec.Suite]
	if !served {
		names := strings.Join(slices.Sorted(maps.Keys(servedSuites)), ", ")
		return usagef("--spec %s: suite %s is not served (serve times %s)", flags["spec"], spec.Suite, names)
	}
	// The protocol owns standard output: anything else this process prints goes to stderr.
	answers := json.NewEncoder(os.Stdout)
	os.Stdout = os.Stderr
	cells, err := prepare(spec)
	if err != nil {
		return err
	}
	runs := map[any]batchFunc{} // by spec index (int), and "reference"
	greeting := hello{Protocol: protocol, Cells: make([]cellEntry, 0, len(cells))}
	for _, cell := range cells {
		if cell.status != "" {
			greeting.Cells = append(greeting.Cells, cellEntry{
				Status: cell.status, Implementation: cell.label.implementation, ImplementationVersion: cell.label.version,
				InputBytes: cell.label.inputBytes, Reason: &cell.reason,
			})
			continue
		}
		runs[cell.index] = cell.timer.run
		greeting.Cells = append(greeting.Cells, entryOf(cell.label, cell.outputBytes, cell.timer.passLength))
	}
	reference := referenceOf(spec.Suite)
	runs["reference"] = reference.timer.run
	greeting.Reference = entryOf(reference.label, sha256.Size, reference.timer.passLength)
	if err := answers.Encode(greeting); err != nil {
		return err
	}
	return serveRequests(runs, os.Stdin, answers)
}

// serveRequests runs each request's batches in order, answering as each ends, until the end
// request; the conductor closing the pipe before it is an error.
func serveRequests(runs map[any]batchFunc, requests io.Reader, answers *json.Encoder) error {
	lines := bufio.NewReader(requests)
	for {
		line, readErr := lines.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var asked request
			if err := json.Unmarshal(line, &asked); err != nil {
				return fmt.Errorf("serve: a request that is not the protocol's JSON: %v", err)
			}
			if asked.End {
				return answers.Encode(map[string]int64{"sink": sink})
			}
			if err := runRequest(runs, asked.Batches, answers); err != nil {
				return err
			}
		}
		if errors.Is(readErr, io.EOF) {
			return errors.New("serve: the conductor closed the pipe without an end request")
		}
		if readErr != nil {
			return readErr
		}
	}
}

// runRequest runs one request's batches, one answer line each; a batch that panics is
// answered with its error and ends the request.
func runRequest(runs map[any]batchFunc, batches [][]json.RawMessage, answers *json.Encoder) error {
	for _, batch := range batches {
		var n int64
		if len(batch) != 2 || json.Unmarshal(batch[1], &n) != nil || n < 1 {
			return fmt.Errorf("serve: a batch %s is not [cell, n >= 1]", batch)
		}
		run, timed := runs[batchKey(batch[0])]
		if !timed {
			return fmt.Errorf("serve: a batch of %s, which is no timed cell", batch[0])
		}
		elapsed, err := runServed(run, n)
		if err != nil {
			return answers.Encode(map[string]string{"error": firstLine(err.Error())})
		}
		if err := answers.Encode(map[string]int64{"elapsed_ns": int64(elapsed)}); err != nil {
			return err
		}
	}
	return nil
}

// runServed is one batch timed as bench times it (timeBatch); a panic in it is its error.
func runServed(run batchFunc, n int64) (elapsed time.Duration, err error) {
	defer func() {
		if problem := recover(); problem != nil {
			err = fmt.Errorf("%v", problem)
		}
	}()
	return timeBatch(run, n), nil
}

// batchKey is a batch's cell as runs holds it: a spec index (int), or a name ("reference").
func batchKey(raw json.RawMessage) any {
	var index int
	if json.Unmarshal(raw, &index) == nil {
		return index
	}
	var name string
	if json.Unmarshal(raw, &name) == nil {
		return name
	}
	return nil
}

func firstLine(text string) string {
	line, _, _ := strings.Cut(text, "\n")
	return line
}
