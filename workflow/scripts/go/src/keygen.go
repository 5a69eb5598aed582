package main

import (
	"bufio"
	"crypto"
	"crypto/x509"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Suite keygen: seed 004's loop (generate a key pair, sign, verify) per iteration, every
// iteration timed, each per-iteration cell in a child process (this binary's keygen
// worker) that the driver kills when the cell's budget ends, even inside a key
// generation; then the run's keys' sign and verify cells, timed as suite primitive's.

const keygenWorkerCommand = "keygen-worker"

// keygenMessage is message_bytes of the ASCII digits 0123456789 repeated.
func keygenMessage(n int) []byte {
	return []byte(strings.Repeat("0123456789", n/10+1)[:n])
}

func benchKeygen(spec *benchSpec, out *rowWriter) error {
	settings := spec.Keygen
	pairChecks := map[string]error{}
	type signingCell struct {
		index int // in spec.Cells
		cell  *cellSpec
		label cellLabel
	}
	var later []signingCell
	for index, cell := range spec.Cells {
		label := cellLabel{
			implementation: stdlibCrypto, version: goVersionNumber(), suite: "keygen", operation: cell.Operation,
			algorithm: cell.Algorithm, input: cell.Input, keyBits: *cell.KeyBits, inputBytes: *cell.MessageBytes,
		}
		pairKey := strings.Join([]string{cell.Family, strconv.Itoa(*cell.KeyBits), cell.PrivateKey, cell.PublicKey}, "\x00")
		if _, done := pairChecks[pairKey]; !done {
			err := checkPEMPair(cell)
			var usageErr *usageError
			if asUsage(err, &usageErr) {
				return err
			}
			pairChecks[pairKey] = err
			if err != nil {
				progress("%s-%d: the PEM key pair fails its check: %v", cell.Family, *cell.KeyBits, err)
			}
		}
		if pairChecks[pairKey] != nil {
			if err := out.untimed(label, "failed"); err != nil {
				return err
			}
			continue
		}
		if cell.Operation == "sign" || cell.Operation == "verify" {
			later = append(later, signingCell{index, cell, label})
			continue
		}
		if err := runPerIteration(cell, label, settings, out); err != nil {
			return err
		}
	}
	var cells checkedCells
	for _, s := range later {
		scheme := signatureSchemes[s.cell.Algorithm]
		private, public, err := loadPEMPair(s.cell.PrivateKey, s.cell.PublicKey)
		if err != nil {
			return err
		}
		run, outputBytes, err := signatureBatch(s.cell.Operation, scheme, private, public, keygenMessage(*s.cell.MessageBytes))
		cells.add(s.index, s.label, run, outputBytes, err)
	}
	return cells.bench(spec, out)
}

// checkPEMPair: the run's key pair is of the cell's family and size, and signs and verifies.
func checkPEMPair(cell *cellSpec) error {
	scheme := signatureSchemes[cell.Algorithm]
	private, public, err := loadPEMPair(cell.PrivateKey, cell.PublicKey)
	if err != nil {
		return err
	}
	if err := scheme.checkKeySize(public, *cell.KeyBits); err != nil {
		return err
	}
	return scheme.checkPair(private, public, keygenMessage(10))
}

// iterationResult is one line of the worker: an iteration's time and output size.
type iterationResult struct {
	ns          int64
	outputBytes int
}

// runPerIteration runs one keygen or keygen+sign+verify cell in a worker process, reading
// each iteration as it is measured, and kills the worker when max_cell_seconds ends
// (counted from the worker's start, which is just before its first iteration). A worker
// that reports "failed" (an iteration's error, or the first iteration's key pair failing
// its check) fails the cell.
func runPerIteration(cell *cellSpec, label cellLabel, settings *keygenConfig, out *rowWriter) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	worker := exec.Command(self, keygenWorkerCommand, cell.Operation, cell.Algorithm, strconv.Itoa(*cell.KeyBits),
		strconv.Itoa(*cell.MessageBytes), strconv.Itoa(*settings.Iterations),
		strconv.FormatFloat(*settings.TargetCellSeconds, 'g', -1, 64), strconv.Itoa(*settings.MaxIterations))
	worker.Stderr = os.Stderr
	stdout, err := worker.StdoutPipe()
	if err != nil {
		return err
	}
	start := time.Now()
	if err := worker.Start(); err != nil {
		return err
	}
	lines := make(chan string)
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			lines <- scanner.Text()
		}
		close(lines)
	}()
	deadline := time.NewTimer(seconds(*settings.MaxCellSeconds))
	defer deadline.Stop()
	var results []iterationResult
	failure, timedOut, finished := "", false, false
	for !finished && !timedOut {
		select {
		case line, open := <-lines:
			switch {
			case !open:
				finished = true
				if failure == "" && len(results) == 0 {
					failure = "the worker ended without reporting"
				}
			case strings.HasPrefix(line, "failed "):
				failure = strings.TrimPrefix(line, "failed ")
			default:
				var r iterationResult
				if _, err := fmt.Sscanf(line, "%d %d", &r.ns, &r.outputBytes); err != nil {
					failure = "the worker said " + strconv.Quote(line)
				} else {
					results = append(results, r)
				}
			}
		case <-deadline.C:
			timedOut = true
			worker.Process.Kill()
		}
	}
	spent := time.Since(start)
	go func() {
		for range lines { // drain what a killed worker had written
		}
	}()
	waitErr := worker.Wait()
	if failure == "" && !timedOut && waitErr != nil {
		failure = "the worker " + waitErr.Error()
	}
	if failure != "" {
		progress("%s: failed: %s", describe(label), failure)
		return out.untimed(label, "failed")
	}
	status := "ok"
	if timedOut && len(results) < *settings.Iterations {
		status = "timeout"
	}
	if len(results) == 0 {
		progress("%s: timeout after %.2f s, no iteration", describe(label), spent.Seconds())
		return out.write(label, sampleRow{0, 0, int64(spent), 0, status})
	}
	times := make([]int64, len(results))
	for i, r := range results {
		times[i] = r.ns
		if err := out.write(label, sampleRow{i + 1, 1, r.ns, r.outputBytes, status}); err != nil {
			return err
		}
	}
	progress("%s: %d iterations, median %.3f ms, %.2f s (%s)", describe(label), len(results), medianOfInts(times)/1e6, spent.Seconds(), status)
	return nil
}

// keygenWorker is the child: every iteration timed, the first too, each printed as
// "<ns> <output bytes>" as soon as it is measured. Right after the first iteration
// (untimed, but inside the cell's budget) the key pair it generated is checked: family,
// size and e / curve, signs, verifies, rejects a flipped signature. A failure is printed
// as "failed <reason>".
func keygenWorker(args []string) error {
	if len(args) != 7 {
		return usagef("%s: expected 7 arguments", keygenWorkerCommand)
	}
	operation, algorithm := args[0], args[1]
	numbers := make([]int, 0, 5)
	for _, i := range []int{2, 3, 4, 6} {
		value, err := strconv.Atoi(args[i])
		if err != nil {
			return usagef("%s: %q is not an integer", keygenWorkerCommand, args[i])
		}
		numbers = append(numbers, value)
	}
	bits, messageBytes, iterations, maxIterations := numbers[0], numbers[1], numbers[2], numbers[3]
	target, err := strconv.ParseFloat(args[5], 64)
	if err != nil {
		return usagef("%s: %q is not a number", keygenWorkerCommand, args[5])
	}
	scheme, known := signatureSchemes[algorithm]
	if !known {
		return usagef("%s: unknown algorithm %q", keygenWorkerCommand, algorithm)
	}
	report := bufio.NewWriter(os.Stdout)
	fail := func(err error) error {
		fmt.Fprintf(report, "failed %v\n", err)
		return report.Flush()
	}
	message := keygenMessage(messageBytes)
	iteration := func() (crypto.Signer, int, error) {
		key, err := scheme.generate(bits)
		if err != nil || operation == "keygen" {
			return key, 0, err
		}
		signature, err := scheme.sign(key, message)
		if err != nil {
			return nil, 0, err
		}
		if !scheme.verify(key.Public(), message, signature) {
			return nil, 0, fmt.Errorf("a fresh signature does not verify")
		}
		return key, len(signature), nil
	}
	started := time.Now()
	for done := 0; done < maxIterations && (done < iterations || time.Since(started) < seconds(target)); done++ {
		begin := time.Now()
		key, outputBytes, err := iteration()
		took := time.Since(begin)
		if err != nil {
			return fail(err)
		}
		if done == 0 {
			err = scheme.checkKeySize(key.Public(), bits)
			if err == nil {
				err = scheme.checkPair(key, key.Public(), keygenMessage(10))
			}
			if err != nil {
				return fail(fmt.Errorf("the first iteration's key pair: %v", err))
			}
		}
		if operation == "keygen" {
			if outputBytes, err = publicKeyDERLength(key.Public()); err != nil {
				return err
			}
		}
		fmt.Fprintf(report, "%d %d\n", max(int64(took), 1), outputBytes)
		if err := report.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func publicKeyDERLength(public crypto.PublicKey) (int, error) {
	der, err := x509.MarshalPKIXPublicKey(public)
	return len(der), err
}
