package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// signCase is one case of sign-batch's --cases file: what `sign` takes as flags.
type signCase struct {
	ID      string `json:"id"`
	Alg     string `json:"alg"`
	Key     string `json:"key"`
	Payload string `json:"payload"`
}

// signLine is sign-batch's line for one case: the exit status `sign` would have, its token
// when signed, else the reason on one line.
type signLine struct {
	ID     string `json:"id"`
	Exit   int    `json:"exit"`
	Token  string `json:"token"`
	Reason string `json:"reason"`
}

// signBatchCommand runs `sign` on every case of --cases in this process and prints one JSON
// line per case, flushed at once (os.Stdout is unbuffered).
func signBatchCommand(args []string) error {
	flags, err := parseFlags("sign-batch", args, "cases")
	if err != nil {
		return err
	}
	cases, err := readSignCases(flags["cases"])
	if err != nil {
		return err
	}
	out := json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false)
	for _, c := range cases {
		if err := out.Encode(runSignCase(c)); err != nil {
			return err
		}
	}
	return nil
}

// readSignCases reads and checks sign-batch's --cases file (as verify-batch's: exit 2
// naming the file and the case).
func readSignCases(path string) ([]signCase, error) {
	return readCaseList(path, func(number int, c signCase) error {
		if c.ID == "" || c.Alg == "" || c.Key == "" || c.Payload == "" {
			return fmt.Errorf("case %d lacks id, alg, key or payload", number)
		}
		return caseAlgorithm(c.ID, c.Alg)
	})
}

// runSignCase does what `sign` does with the case's flags (signingInputs' key loading and
// claims, the adapter's signer): exit 0 with the token, 3 when the library lacks the
// algorithm, 4 for anything else (a key or payload file that cannot be loaded, the
// library's error, a panic anywhere in the case).
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
	token, err := guardedSign(s, claims)
	if err != nil {
		reason, _ := errorReason(err)
		return fail(exitFailure, reason)
	}
	line.Token = token
	return line
}

// guardedSign is signer.sign with a panic in it a panicError.
func guardedSign(s signer, claims any) (token string, err error) {
	defer func() {
		if r := recover(); r != nil {
			token, err = "", &panicError{r}
		}
	}()
	return s.sign(claims)
}
