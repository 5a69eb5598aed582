package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// maxReason is the longest reason verify-batch writes, in characters.
const maxReason = 300

// panicError is a panic recovered from the library.
type panicError struct{ value any }

func (e *panicError) Error() string { return fmt.Sprint(e.value) }

// guardedVerify times one call of the verify function (monotonic clock); a panic in it
// becomes a panicError, so nothing ends the process and no stack trace is printed.
func guardedVerify(v verifier, token string) (claims any, elapsed time.Duration, err error) {
	began := time.Now()
	defer func() {
		if r := recover(); r != nil {
			claims, elapsed, err = nil, time.Since(began), &panicError{r}
		}
	}()
	claims, err = v.verify(token)
	return claims, time.Since(began), err
}

// guardedSignature times one call of verifier.verifySignature (monotonic clock), a panic
// in it a panicError.
func guardedSignature(v verifier, token string) (payload []byte, elapsed time.Duration, err error) {
	began := time.Now()
	defer func() {
		if r := recover(); r != nil {
			payload, elapsed, err = nil, time.Since(began), &panicError{r}
		}
	}()
	payload, err = v.verifySignature(token)
	return payload, time.Since(began), err
}

// errorReason names an error "Type: message" on one line of at most maxReason characters,
// and says whether it is the library's verdict on the token (the library's documented
// errors, jwsLibrary.classify).
func errorReason(err error) (reason string, verdict bool) {
	name := fmt.Sprintf("%T", err)
	if p, ok := err.(*panicError); ok {
		name = fmt.Sprintf("panic %T", p.value)
	} else if known, isVerdict, ok := library.classify(err); ok {
		name, verdict = known, isVerdict
	}
	return oneLine(name + ": " + err.Error()), verdict
}

func oneLine(text string) string {
	text = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(strings.ToValidUTF8(text, "\uFFFD"))
	if runes := []rune(text); len(runes) > maxReason {
		text = string(runes[:maxReason])
	}
	return text
}

// verdictError is what `verify` returns for an error of the verify function: invalid token
// (exit 1) for the library's verdict, else a libraryFailure (exit 4).
func verdictError(err error) error {
	reason, verdict := errorReason(err)
	if verdict {
		return fmt.Errorf("%w: %s", errInvalidToken, reason)
	}
	return &libraryFailure{reason}
}

// batchCase is one case of a --cases file; Claims asks for the verified claims on accept;
// SignatureOnly times the JWS-only check of `verify --signature-only` instead of verify.
type batchCase struct {
	ID            string `json:"id"`
	Alg           string `json:"alg"`
	Key           string `json:"key"`
	Token         string `json:"token"`
	Claims        bool   `json:"claims"`
	SignatureOnly bool   `json:"signature_only"`
}

// caseLine is verify-batch's line for one case.
type caseLine struct {
	ID        string `json:"id"`
	Exit      int    `json:"exit"`
	Outcome   string `json:"outcome"`
	ElapsedNS int64  `json:"elapsed_ns"`
	PeakRSSKB int64  `json:"peak_rss_kb"`
	Reason    string `json:"reason"`
	// Claims are the verified claims, encoded as `verify` prints them (json.Number keeps
	// every number's literal); nil, so left out, unless the case asked and was accepted.
	Claims map[string]any `json:"claims,omitzero"`
	// PayloadB64url is a signature_only case's payload as signed, base64url without
	// padding; nil, so left out, unless such a case was accepted (an empty payload is "").
	PayloadB64url *string `json:"payload_b64url,omitempty"`
}

// verifyBatchCommand runs the verify function on every case of --cases in this process and
// prints one JSON line per case, flushed at once (os.Stdout is unbuffered).
func verifyBatchCommand(args []string) error {
	flags, err := parseFlags("verify-batch", args, "cases")
	if err != nil {
		return err
	}
	cases, err := readCases(flags["cases"])
	if err != nil {
		return err
	}
	out := json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false)
	for _, c := range cases {
		if err := out.Encode(runCase(c)); err != nil {
			return err
		}
	}
	return nil
}

// casesFile is a --cases file: {"cases": [...]}, the cases of verify-batch or sign-batch.
type casesFile[C any] struct {
	Cases *[]C `json:"cases"`
}

// readCaseList reads a --cases file and checks each case with check (its 1-based index):
// any problem is a usage error naming the file.
func readCaseList[C any](path string, check func(number int, c C) error) ([]C, error) {
	data, err := readInput(path)
	if err != nil {
		return nil, err
	}
	var file casesFile[C]
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, usagef("--cases %s: %v", path, err)
	}
	if file.Cases == nil {
		return nil, usagef("--cases %s: lacks 'cases'", path)
	}
	for i, c := range *file.Cases {
		if err := check(i+1, c); err != nil {
			return nil, usagef("--cases %s: %v", path, err)
		}
	}
	return *file.Cases, nil
}

// caseAlgorithm checks a case's alg: a name outside the contract is an error of the file;
// one the library lacks is the case's own `unsupported` line.
func caseAlgorithm(id, alg string) error {
	if err := checkAlgorithm(alg); err != nil && !errors.Is(err, errUnsupported) {
		return fmt.Errorf("case %q: %v", id, err)
	}
	return nil
}

// readCases reads and checks verify-batch's --cases file.
func readCases(path string) ([]batchCase, error) {
	return readCaseList(path, func(number int, c batchCase) error {
		if c.ID == "" || c.Alg == "" || c.Key == "" || c.Token == "" {
			return fmt.Errorf("case %d lacks id, alg, key or token", number)
		}
		return caseAlgorithm(c.ID, c.Alg)
	})
}

// runCase loads the case's key and token (untimed), resets the peak RSS and times one call
// of the verify function. A panic anywhere in the case becomes its "error" line.
func runCase(c batchCase) (line caseLine) {
	line = caseLine{ID: c.ID}
	fail := func(exit int, outcome, reason string) caseLine {
		line.Exit, line.Outcome, line.Reason, line.PeakRSSKB = exit, outcome, oneLine(reason), peakRSSKB()
		return line
	}
	defer func() {
		if r := recover(); r != nil {
			line = fail(exitFailure, "error", fmt.Sprintf("panic %T: %v", r, r))
		}
	}()
	if err := checkAlgorithm(c.Alg); err != nil {
		return fail(exitUnsupported, "unsupported", err.Error()) // "unsupported: ..."
	}
	v, _, err := loadVerifier(c.Alg, c.Key)
	if err != nil {
		return fail(exitFailure, "error", "KeyFileError: "+err.Error()) // names the file, never its bytes
	}
	raw, err := readInput(c.Token)
	if err != nil {
		return fail(exitFailure, "error", "TokenFileError: "+err.Error())
	}
	token := strings.TrimSpace(string(raw))
	debug.FreeOSMemory() // the last case's garbage does not count in this one's peak
	resetPeakRSS()
	if c.SignatureOnly {
		return signatureOnlyCase(line, v, token)
	}
	claims, elapsed, err := guardedVerify(v, token)
	line.ElapsedNS, line.PeakRSSKB = elapsed.Nanoseconds(), peakRSSKB()
	if err == nil {
		line.Exit, line.Outcome = exitOK, "accept"
		if c.Claims {
			line.Claims = library.claimsMap(claims)
		}
	} else if reason, verdict := errorReason(err); verdict {
		line.Exit, line.Outcome, line.Reason = exitInvalid, "reject", reason
	} else {
		line.Exit, line.Outcome, line.Reason = exitFailure, "error", reason
	}
	return line
}

// signatureOnlyCase times one call of the JWS-only check `verify --signature-only` makes
// and answers as it does: accept with the payload as signed, a recovered panic an error,
// and every other error the check's verdict (reject).
func signatureOnlyCase(line caseLine, v verifier, token string) caseLine {
	payload, elapsed, err := guardedSignature(v, token)
	line.ElapsedNS, line.PeakRSSKB = elapsed.Nanoseconds(), peakRSSKB()
	if err == nil {
		encoded := base64.RawURLEncoding.EncodeToString(payload)
		line.Exit, line.Outcome, line.PayloadB64url = exitOK, "accept", &encoded
		return line
	}
	reason, _ := errorReason(err)
	if _, panicked := err.(*panicError); panicked {
		line.Exit, line.Outcome, line.Reason = exitFailure, "error", reason
	} else {
		line.Exit, line.Outcome, line.Reason = exitInvalid, "reject", reason
	}
	return line
}

// resetPeakRSS sets the process's VmHWM to its current RSS (a failure is ignored).
func resetPeakRSS() {
	if f, err := os.OpenFile("/proc/self/clear_refs", os.O_WRONLY, 0); err == nil {
		f.Write([]byte("5"))
		f.Close()
	}
}

// peakRSSKB is VmHWM from /proc/self/status in kB (0 where unreadable).
func peakRSSKB() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(status, []byte("\n")) {
		if fields := strings.Fields(string(line)); len(fields) >= 2 && fields[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(fields[1], 10, 64)
			return kb
		}
	}
	return 0
}
