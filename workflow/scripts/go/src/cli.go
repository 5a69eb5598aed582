package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// parseFlags reads the named flags (each required) and the named switches (boolean, each
// optional) of one subcommand.
func parseFlags(command string, args []string, names []string, switchNames ...string) (map[string]string, map[string]bool, error) {
	set := flag.NewFlagSet(command, flag.ContinueOnError)
	set.SetOutput(io.Discard)
	values, switches := map[string]string{}, map[string]bool{}
	for _, name := range names {
		set.Func(name, "", func(value string) error { values[name] = value; return nil })
	}
	for _, name := range switchNames {
		set.BoolFunc(name, "", func(value string) (err error) { switches[name], err = strconv.ParseBool(value); return err })
	}
	if err := set.Parse(args); err != nil {
		return nil, nil, usagef("%s: %v", command, err)
	}
	if set.NArg() > 0 {
		return nil, nil, usagef("%s: unexpected argument %q", command, set.Arg(0))
	}
	for _, name := range names {
		if values[name] == "" {
			return nil, nil, usagef("%s: --%s is required", command, name)
		}
	}
	return values, switches, nil
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

// readSignable reads a claims file into the library's form of claims.
func readSignable(path string) (any, error) {
	claims, _, err := readClaims(path)
	if err != nil {
		return nil, err
	}
	return signable(claims, path)
}

func signCommand(args []string) error {
	flags, _, err := parseFlags("sign", args, []string{"alg", "key", "payload"})
	if err != nil {
		return err
	}
	signer, err := loadSigner(flags["alg"], flags["key"])
	if err != nil {
		return err
	}
	claims, err := readSignable(flags["payload"])
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

// verifyCommand checks a token in full and prints its claims, or with --signature-only
// just the JWS, printing the payload as signed.
func verifyCommand(args []string) error {
	flags, switches, err := parseFlags("verify", args, []string{"alg", "key", "token"}, "signature-only")
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
		payload, _, err := guarded(func() ([]byte, error) { return verifier.verifySignature(token) })
		if err != nil {
			return verdictError(err, true)
		}
		_, err = os.Stdout.Write(payload) // exactly the bytes signed, no newline
		return err
	}
	claims, _, err := guarded(func() (any, error) { return verifier.verify(token) })
	if err != nil {
		return verdictError(err, false)
	}
	return json.NewEncoder(os.Stdout).Encode(library.claimsMap(claims))
}

// coldstartCommand is suite coldstart's whole-process work: an HS256 and an RS256 token.
func coldstartCommand(args []string) error {
	flags, _, err := parseFlags("coldstart", args, []string{"hmac", "rsa", "payload"})
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
