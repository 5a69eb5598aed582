package main

import (
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

// `serve --spec FILE`: the conductor's worker, jwtbench-worker/1 (workflow/scripts/README.md,
// "serve"; workflow/schemas/protocol/worker.schema.yaml).

const protocol = "jwtbench-worker/1"

// preparers prepare and check each suite's cells.
var preparers = map[string]func(*benchSpec) (cells, error){
	"jwt": prepareJWT, "percall": prepareJWT, "tokensize": prepareJWT, "transfer": prepareTransfer,
	"hash": prepareHash, "primitive": preparePrimitive, "harness": prepareHarness, "keygen": prepareKeygen,
}

// cellEntry is a cell's entry in the hello line.
type cellEntry struct {
	Status                string `json:"status"`
	Implementation        string `json:"implementation"`
	ImplementationVersion string `json:"implementation_version"`
	InputBytes            int    `json:"input_bytes"`
	OutputBytes           *int   `json:"output_bytes,omitempty"`
	PassLength            int64  `json:"pass_length,omitempty"`
	Reason                string `json:"reason,omitempty"`
}

func entryOf(c *cell, implementation, version string) cellEntry {
	entry := cellEntry{Status: c.status, Implementation: implementation, ImplementationVersion: version,
		InputBytes: c.inputBytes, Reason: c.reason}
	if c.status == "" {
		entry.Status, entry.OutputBytes, entry.PassLength = "ok", &c.outputBytes, max(c.passLength, 1)
	}
	return entry
}

type hello struct {
	Protocol  string            `json:"protocol"`
	Cells     []cellEntry       `json:"cells"`
	Reference *cellEntry        `json:"reference"`
	Harness   map[string]string `json:"harness,omitempty"` // a cross-check spec's native harness
}

// request is one line from the conductor: batches to run, a native run, or the end.
type request struct {
	Batches [][]json.RawMessage `json:"batches"`
	Native  []json.RawMessage   `json:"native"`
	End     bool                `json:"end"`
}

func serveCommand(args []string) (err error) {
	// A panic while preparing ends the worker with exit 1 (one in a batch: runBatch).
	defer func() {
		if problem := recover(); problem != nil {
			err = fmt.Errorf("%v", problem)
		}
	}()
	flags, _, err := parseFlags("serve", args, []string{"spec"})
	if err != nil {
		return err
	}
	spec, err := readSpec(flags["spec"])
	if err != nil {
		return err
	}
	prepare, known := preparers[spec.Suite]
	if !known {
		return usagef("--spec %s: suite %q is not one this driver has", flags["spec"], spec.Suite)
	}
	// The protocol owns standard output: anything else this process prints goes to stderr.
	answers := json.NewEncoder(os.Stdout)
	os.Stdout = os.Stderr
	prepared, err := prepare(spec)
	if err != nil {
		return err
	}
	implementation, version := library.name(), libraryVersion()
	if slices.Contains([]string{"hash", "primitive", "keygen"}, spec.Suite) {
		implementation, version = stdlibCrypto, goVersionNumber()
	}
	runs := map[any]*cell{} // by spec index (int), and "reference"
	greeting := hello{Protocol: protocol, Cells: make([]cellEntry, 0, len(prepared))}
	for index, c := range prepared {
		if c.status == "" {
			runs[index] = c
		}
		greeting.Cells = append(greeting.Cells, entryOf(c, implementation, version))
	}
	if !slices.Contains([]string{"percall", "tokensize", "transfer"}, spec.Suite) { // no drift reference
		runs["reference"] = reference()
		entry := entryOf(runs["reference"], stdlibCrypto, goVersionNumber())
		greeting.Reference = &entry
	}
	if spec.Crosscheck != nil {
		greeting.Harness = map[string]string{"name": nativeHarness, "version": goVersionNumber()}
	}
	if err := answers.Encode(greeting); err != nil {
		return err
	}
	return serveRequests(runs, spec.Crosscheck != nil, answers)
}

// serveRequests answers each request until the end request.
func serveRequests(runs map[any]*cell, crosscheck bool, answers *json.Encoder) error {
	requests := json.NewDecoder(os.Stdin)
	for {
		var asked request
		if err := requests.Decode(&asked); errors.Is(err, io.EOF) {
			return errors.New("serve: the conductor closed the pipe without an end request")
		} else if err != nil {
			return fmt.Errorf("serve: a request that is not the protocol's JSON: %v", err)
		}
		var err error
		switch {
		case asked.End:
			return answers.Encode(map[string]int64{"sink": sink})
		case asked.Native != nil && crosscheck:
			err = answers.Encode(runNative(runs, asked.Native))
		case asked.Native != nil:
			err = errors.New("serve: a native request, but the spec is no cross-check spec")
		default:
			err = runRequest(runs, asked.Batches, answers)
		}
		if err != nil {
			return err
		}
	}
}

// runRequest runs one request's batches, one answer line each; a batch that fails is
// answered with its error and ends the request.
func runRequest(runs map[any]*cell, batches [][]json.RawMessage, answers *json.Encoder) error {
	for _, batch := range batches {
		var n int64
		if len(batch) != 2 || json.Unmarshal(batch[1], &n) != nil || n < 1 {
			return fmt.Errorf("serve: a batch %s is not [cell, n >= 1]", batch)
		}
		c, timed := runs[cellKey(batch[0])]
		if !timed {
			return fmt.Errorf("serve: a batch of %s, which is no timed cell", batch[0])
		}
		answer, err := runBatch(c, n)
		if err != nil {
			return answers.Encode(map[string]string{"error": firstLine(err.Error())})
		}
		if err := answers.Encode(answer); err != nil {
			return err
		}
	}
	return nil
}

// runBatch is one batch, the clock read around it only; a panic in it is its error.
func runBatch(c *cell, n int64) (answer map[string]any, err error) {
	defer func() {
		if problem := recover(); problem != nil {
			err = fmt.Errorf("%v", problem)
		}
	}()
	start := time.Now()
	folded := c.run(n)
	elapsed := time.Since(start)
	sink ^= folded
	answer = map[string]any{"elapsed_ns": max(elapsed.Nanoseconds(), 1)}
	if c.after != nil {
		extra, err := c.after(n, folded)
		if err != nil {
			return nil, err
		}
		maps.Copy(answer, extra)
	}
	return answer, nil
}

// runNative answers {"native": [cell, seconds]}: testing.Benchmark on the cell's call.
func runNative(runs map[any]*cell, asked []json.RawMessage) map[string]any {
	var seconds float64
	if len(asked) != 2 || json.Unmarshal(asked[1], &seconds) != nil || !(seconds > 0) {
		return map[string]any{"error": fmt.Sprintf("a native request %s is not [cell, seconds > 0]", asked)}
	}
	c, timed := runs[cellKey(asked[0])]
	if !timed || c.native == nil {
		return map[string]any{"error": fmt.Sprintf("a native run of %s, which is no timed cell", asked[0])}
	}
	nsPerOp, err := nativeRun(c.native, seconds)
	if err != nil {
		return map[string]any{"error": firstLine(err.Error())}
	}
	return map[string]any{"ns_per_op": nsPerOp, "samples": 1}
}

// cellKey is a request's cell as runs holds it: a spec index (int), or a name ("reference").
func cellKey(raw json.RawMessage) any {
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
