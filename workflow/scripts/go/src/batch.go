package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
)

// maxReason is the longest reason a batch line carries, in characters.
const maxReason = 300

// panicError is a panic recovered from the library.
type panicError struct{ value any }

func (e *panicError) Error() string { return fmt.Sprint(e.value) }

// guarded times one call (monotonic clock); a panic in it becomes a panicError, so nothing
// ends the process and no stack trace is printed.
func guarded[T any](call func() (T, error)) (result T, elapsed time.Duration, err error) {
	began := time.Now()
	defer func() {
		if r := recover(); r != nil {
			var none T
			result, elapsed, err = none, time.Since(began), &panicError{r}
		}
	}()
	result, err = call()
	return result, time.Since(began), err
}

// errorReason names an error "Type: message" on one line and says whether it is the
// library's verdict (jwsLibrary.classify; of --signature-only, every error but a panic).
func errorReason(err error, signatureOnly bool) (reason string, verdict bool) {
	name := fmt.Sprintf("%T", err)
	if p, ok := err.(*panicError); ok {
		name = fmt.Sprintf("panic %T", p.value)
	} else if known, isVerdict, ok := library.classify(err); ok {
		name, verdict = known, isVerdict || signatureOnly
	} else {
		verdict = signatureOnly
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

// verdictError is what `verify` returns for an error of its call: invalid token (exit 1)
// for the library's verdict, else a libraryFailure (exit 4).
func verdictError(err error, signatureOnly bool) error {
	reason, verdict := errorReason(err, signatureOnly)
	if verdict {
		return fmt.Errorf("%w: %s", errInvalidToken, reason)
	}
	return &libraryFailure{reason}
}

// verifyCase is one case of verify-batch's --cases file.
type verifyCase struct {
	ID            string `json:"id"`
	Alg           string `json:"alg"`
	Key           string `json:"key"`
	Token         string `json:"token"`
	Claims        bool   `json:"claims"`
	SignatureOnly bool   `json:"signature_only"`
}

// verifyLine is verify-batch's line for one case.
type verifyLine struct {
	ID        string         `json:"id"`
	Exit      int            `json:"exit"`
	Outcome   string         `json:"outcome"`
	ElapsedNS int64          `json:"elapsed_ns"`
	PeakRSSKB int64          `json:"peak_rss_kb"`
	Reason    string         `json:"reason"`
	Claims    map[string]any `json:"claims,omitzero"`
	// PayloadB64url is an accepted signature_only case's payload ("" when empty).
	PayloadB64url *string `json:"payload_b64url,omitempty"`
}

// signCase is one case of sign-batch's --cases file.
type signCase struct {
	ID      string `json:"id"`
	Alg     string `json:"alg"`
	Key     string `json:"key"`
	Payload string `json:"payload"`
}

// signLine is sign-batch's line for one case.
type signLine struct {
	ID     string `json:"id"`
	Exit   int    `json:"exit"`
	Token  string `json:"token"`
	Reason string `json:"reason"`
}

func verifyBatchCommand(args []string) error {
	fields := func(c verifyCase) []string { return []string{c.ID, c.Alg, c.Key, c.Token} }
	return casesCommand("verify-batch", args, "token", fields, runVerifyCase)
}

func signBatchCommand(args []string) error {
	fields := func(c signCase) []string { return []string{c.ID, c.Alg, c.Key, c.Payload} }
	return casesCommand("sign-batch", args, "payload", fields, runSignCase)
}

// casesCommand reads and checks the whole --cases file first (exit 2 naming what is
// wrong), then prints one JSON line per case, flushed at once (os.Stdout is unbuffered).
func casesCommand[C, L any](command string, args []string, file string, fields func(C) []string, run func(C) L) error {
	flags, _, err := parseFlags(command, args, []string{"cases"})
	if err != nil {
		return err
	}
	path := flags["cases"]
	data, err := readInput(path)
	if err != nil {
		return err
	}
	var parsed struct {
		Cases *[]C `json:"cases"`
	}
	if err := json.Unmarshal(data, &parsed); err != nil {
		return usagef("--cases %s: %v", path, err)
	}
	if parsed.Cases == nil {
		return usagef("--cases %s: lacks 'cases'", path)
	}
	for i, c := range *parsed.Cases {
		values := fields(c)
		if slices.Contains(values, "") {
			return usagef("--cases %s: case %d lacks id, alg, key or %s", path, i+1, file)
		}
		if err := checkAlgorithm(values[1]); err != nil && !errors.Is(err, errUnsupported) {
			return usagef("--cases %s: case %q: %v", path, values[0], err)
		}
	}
	out := json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false)
	for _, c := range *parsed.Cases {
		if err := out.Encode(run(c)); err != nil {
			return err
		}
	}
	return nil
}

// runVerifyCase loads the case's key and token (untimed), resets the peak RSS and times
// one call of `verify`'s function. A panic anywhere in the case is its "error" line.
func runVerifyCase(c verifyCase) (line verifyLine) {
	line = verifyLine{ID: c.ID}
	fail := func(exit int, outcome, reason string) verifyLine {
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
	var claims any
	var payload []byte
	var elapsed time.Duration
	if c.SignatureOnly {
		payload, elapsed, err = guarded(func() ([]byte, error) { return v.verifySignature(token) })
	} else {
		claims, elapsed, err = guarded(func() (any, error) { return v.verify(token) })
	}
	line.ElapsedNS, line.PeakRSSKB = elapsed.Nanoseconds(), peakRSSKB()
	if err != nil {
		reason, verdict := errorReason(err, c.SignatureOnly)
		if verdict {
			return fail(exitInvalid, "reject", reason)
		}
		return fail(exitFailure, "error", reason)
	}
	line.Exit, line.Outcome = exitOK, "accept"
	if c.SignatureOnly {
		encoded := base64.RawURLEncoding.EncodeToString(payload)
		line.PayloadB64url = &encoded
	} else if c.Claims {
		line.Claims = library.claimsMap(claims)
	}
	return line
}

// runSignCase does what `sign` does with the case's flags; any failure but an
// unsupported algorithm is exit 4.
func runSignCase(c signCase) (line signLine) {
	line = signLine{ID: c.ID}
	fail := func(exit int, reason string) signLine {
		line.Exit, line.Token, line.Reason = exit, "", oneLine(reason)
		return line
	}
	defer func() {
		if r := recover(); r != nil {
			line = fail(exitFailure, fmt.Sprintf("panic %T: %v", r, r))
		}
	}()
	s, err := loadSigner(c.Alg, c.Key)
	if errors.Is(err, errUnsupported) {
		return fail(exitUnsupported, err.Error()) // "unsupported: ...", as verify-batch says it
	}
	if err != nil {
		return fail(exitFailure, "KeyFileError: "+err.Error()) // names the file, never its bytes
	}
	claims, err := readSignable(c.Payload)
	if err != nil {
		return fail(exitFailure, "PayloadFileError: "+err.Error())
	}
	token, _, err := guarded(func() (string, error) { return s.sign(claims) })
	if err != nil {
		reason, _ := errorReason(err, false)
		return fail(exitFailure, reason)
	}
	line.Token = token
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
	_, rest, found := strings.Cut(string(status), "VmHWM:")
	if !found {
		return 0
	}
	kb, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64) // "52312 kB"
	return kb
}
