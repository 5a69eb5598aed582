package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// parseFlags reads the named flags (each required) of one subcommand.
func parseFlags(command string, args []string, names ...string) (map[string]string, error) {
	values, _, err := parseFlagsAndSwitches(command, args, names, nil)
	return values, err
}

// parseFlagsAndSwitches reads the named flags (each required) and the named switches
// (boolean, each optional) of one subcommand.
func parseFlagsAndSwitches(command string, args []string, names, switchNames []string) (map[string]string, map[string]bool, error) {
	set := flag.NewFlagSet(command, flag.ContinueOnError)
	set.SetOutput(io.Discard)
	values := make(map[string]*string, len(names))
	for _, name := range names {
		values[name] = set.String(name, "", "")
	}
	switches := make(map[string]*bool, len(switchNames))
	for _, name := range switchNames {
		switches[name] = set.Bool(name, false, "")
	}
	if err := set.Parse(args); err != nil {
		return nil, nil, usagef("%s: %v", command, err)
	}
	if set.NArg() > 0 {
		return nil, nil, usagef("%s: unexpected argument %q", command, set.Arg(0))
	}
	found := make(map[string]string, len(names))
	for _, name := range names {
		if *values[name] == "" {
			return nil, nil, usagef("%s: --%s is required", command, name)
		}
		found[name] = *values[name]
	}
	switchedOn := make(map[string]bool, len(switchNames))
	for _, name := range switchNames {
		switchedOn[name] = *switches[name]
	}
	return found, switchedOn, nil
}

// readInput reads a file the command was given; failing to is a usage error naming it.
func readInput(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("cannot read %s: %v", path, errorWithoutPath(err))
	}
	return data, nil
}

func errorWithoutPath(err error) error {
	if pathErr, ok := err.(*os.PathError); ok {
		return pathErr.Err
	}
	return err
}

// signingInputs reads the flags --alg, --key and --payload: the algorithm, its signer (the
// key parsed once), the claims in the library's form.
func signingInputs(command string, args []string) (string, signer, any, error) {
	flags, err := parseFlags(command, args, "alg", "key", "payload")
	if err != nil {
		return "", nil, nil, err
	}
	signer, err := loadSigner(flags["alg"], flags["key"])
	if err != nil {
		return "", nil, nil, err
	}
	claims, err := readSignable(flags["payload"])
	return flags["alg"], signer, claims, err
}

// readSignable reads a claims file into the library's form of claims.
func readSignable(path string) (any, error) {
	claims, _, err := readClaims(path)
	if err != nil {
		return nil, err
	}
	return signable(claims, path)
}

func signCommand(args []string) error {
	_, signer, claims, err := signingInputs("sign", args)
	if err != nil {
		return err
	}
	token, err := signer.sign(claims)
	if err != nil {
		return err
	}
	fmt.Println(token)
	return nil
}

// verifyCommand checks a token with the algorithm pinned: in full (the verify policy) and
// prints its claims, or with --signature-only just the JWS, printing the payload bytes as
// signed. A failure of the library that is not its verdict (a panic included) exits 4.
func verifyCommand(args []string) error {
	flags, switches, err := parseFlagsAndSwitches("verify", args,
		[]string{"alg", "key", "token"}, []string{"signature-only"})
	if err != nil {
		return err
	}
	verifier, _, err := loadVerifier(flags["alg"], flags["key"])
	if err != nil {
		return err
	}
	raw, err := readInput(flags["token"])
	if err != nil {
		return err
	}
	token := strings.TrimSpace(string(raw))
	if switches["signature-only"] {
		payload, _, err := guardedSignature(verifier, token)
		if _, panicked := err.(*panicError); panicked {
			return verdictError(err) // exit 4, one line
		}
		if err != nil {
			return fmt.Errorf("%w: %v", errInvalidToken, err)
		}
		_, err = os.Stdout.Write(payload) // exactly the bytes signed, no newline
		return err
	}
	claims, _, err := guardedVerify(verifier, token)
	if err != nil {
		return verdictError(err)
	}
	return json.NewEncoder(os.Stdout).Encode(library.claimsMap(claims))
}

// coldstartCommand is suite coldstart's whole-process work: an HS256 and an RS256 token.
func coldstartCommand(args []string) error {
	flags, err := parseFlags("coldstart", args, "hmac", "rsa", "payload")
	if err != nil {
		return err
	}
	claims, err := readSignable(flags["payload"])
	if err != nil {
		return err
	}
	for _, job := range []struct{ alg, key string }{{"HS256", flags["hmac"]}, {"RS256", flags["rsa"]}} {
		signer, err := loadSigner(job.alg, job.key)
		if err != nil {
			return err
		}
		token, err := signer.sign(claims)
		if err != nil {
			return err
		}
		fmt.Println(token)
	}
	return nil
}
