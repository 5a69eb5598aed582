package main

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
)

// The JWS library behind the harness (workflow/scripts/README.md, "A further library of a
// language"). The harness (CLI, checks, timing loop, stopping rule, rows, verify-batch) is
// shared; only the library's calls differ, behind jwsLibrary. JWTBENCH_LIBRARY names the
// library (unset: golang-jwt, the go driver's own); each is one file named after it.

// jwsLibrary is one JWT library's calls. Keys are parsed, and signers and verifiers built,
// once (untimed); sign, verify, decode and verifySignature are the timed calls.
type jwsLibrary interface {
	// name is the rows' implementation column; module the Go module whose compiled-in
	// version is the implementation_version.
	name() string
	module() string
	// modules are the module paths (or prefixes, ending in "/") `versions` lists under
	// libraries: the library's module and those it loads.
	modules() []string
	// has says whether the library does the contract algorithm alg: nil, or an error
	// wrapping errUnsupported.
	has(alg string) error
	// newSigner parses a signing key (the raw secret for HS*, else a PKCS#8 PEM) into the
	// library's own key object.
	newSigner(alg string, key []byte) (signer, error)
	// newVerifier parses a verifying key (the secret, or an SPKI PEM) and builds what
	// verifies with it: alg pinned, every item of the verify policy set explicitly.
	newVerifier(alg string, key []byte) (verifier, error)
	// claims turns parsed claims (encoding/json, numbers as json.Number) into the value the
	// library signs, once per input, as an application holds its claims before signing.
	claims(parsed map[string]any) (any, error)
	// claimsMap reads a claims object that verify or decode returned as a map, numbers as
	// json.Number (untimed: for the checks and for printing).
	claimsMap(claims any) map[string]any
	// classify names an error of verify or decode: its name, and whether it is the
	// library's verdict on the token (exit 1) or a failure (exit 4); known false when the
	// error is none of the library's documented ones.
	classify(err error) (name string, verdict, known bool)
}

// signer signs claims (the value jwsLibrary.claims made) into a compact JWS.
type signer interface {
	sign(claims any) (string, error)
}

// verifier checks tokens with one algorithm pinned and one key.
type verifier interface {
	// verify is the one verify call of `verify`, `verify-batch` and every timed verify:
	// the signature with the algorithm pinned, then the claims by the verify policy; the
	// payload must be a JSON object. It returns the library's own claims object.
	verify(token string) (any, error)
	// decode reads a token's claims without checking its signature.
	decode(token string) (any, error)
	// verifySignature checks the JWS and nothing else, through the library's JWS layer:
	// the header's alg must be the pinned one and the signature must verify; it returns
	// the payload's bytes exactly as signed (no claims parsed).
	verifySignature(token string) ([]byte, error)
}

// libraries are the JWS libraries this binary has, by name (JWTBENCH_LIBRARY).
var libraries = map[string]jwsLibrary{
	"golang-jwt": golangJWT{},
	"go-jose":    goJose{},
	"jwx":        jwx{},
}

// library is the library this process times, chosen by selectLibrary.
var library jwsLibrary = golangJWT{}

// selectLibrary sets library from JWTBENCH_LIBRARY (unset or empty: golang-jwt).
func selectLibrary() error {
	name := os.Getenv("JWTBENCH_LIBRARY")
	if name == "" {
		return nil
	}
	chosen, known := libraries[name]
	if !known {
		names := make([]string, 0, len(libraries))
		for known := range libraries {
			names = append(names, known)
		}
		sort.Strings(names)
		return usagef("JWTBENCH_LIBRARY: unknown library %q (this driver has %s)", name, strings.Join(names, ", "))
	}
	library = chosen
	if setup, ok := library.(interface{ setup() }); ok {
		setup.setup() // a library's global settings (jwx's)
	}
	return nil
}

// libraryVersion is the library's module version as compiled in.
func libraryVersion() string {
	if version, ok := moduleVersions()[library.module()]; ok {
		return version
	}
	return "unknown"
}

// libraryModules are the compiled-in versions of the library's modules.
func libraryModules() map[string]string {
	found := map[string]string{}
	for path, version := range moduleVersions() {
		if slices.ContainsFunc(library.modules(), func(prefix string) bool {
			return path == prefix || strings.HasSuffix(prefix, "/") && strings.HasPrefix(path, prefix)
		}) {
			found[path] = version
		}
	}
	return found
}

// contractAlgorithms are the JWS names the contract may ask for; which of them the library
// can do is its own answer (jwsLibrary.has).
var contractAlgorithms = []string{
	"HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
	"ES256", "ES384", "ES512", "EdDSA",
}

// checkAlgorithm: a name outside the contract is a usage error; one the library lacks
// wraps errUnsupported.
func checkAlgorithm(alg string) error {
	if !slices.Contains(contractAlgorithms, alg) {
		return usagef("--alg: unknown JWS algorithm %q", alg)
	}
	return library.has(alg)
}

// loadSigner reads a signing key file and parses it once into the library's key object.
func loadSigner(alg, path string) (signer, error) {
	if err := checkAlgorithm(alg); err != nil {
		return nil, err
	}
	data, err := readInput(path)
	if err != nil {
		return nil, err
	}
	s, err := library.newSigner(alg, data)
	if err != nil {
		if isUnsupported(err) {
			return nil, err
		}
		return nil, usagef("%s: not a %s private key: %v", path, alg, err)
	}
	return s, nil
}

// loadVerifier reads a verifying key file and builds the library's verifier on it; it
// returns the file's bytes too (the key-confusion check MACs with them).
func loadVerifier(alg, path string) (verifier, []byte, error) {
	if err := checkAlgorithm(alg); err != nil {
		return nil, nil, err
	}
	data, err := readInput(path)
	if err != nil {
		return nil, nil, err
	}
	v, err := library.newVerifier(alg, data)
	if err != nil {
		if isUnsupported(err) {
			return nil, nil, err
		}
		return nil, nil, usagef("%s: not a %s public key: %v", path, alg, err)
	}
	return v, data, nil
}

// signable is library.claims, a failure naming the input.
func signable(claims map[string]any, what string) (any, error) {
	value, err := library.claims(claims)
	if err != nil {
		return nil, usagef("%s: %s cannot take these claims: %v", what, library.name(), err)
	}
	return value, nil
}

// errNotObject is the reason a payload that is no JSON object fails (the contract requires
// one, whatever the library).
var errNotObject = fmt.Errorf("the claims set is not a JSON object")

// keyFits says whether a parsed key (the standard library's type) is of the algorithm's
// family: RSA for RS* and PS*, ECDSA for ES*, Ed25519 for EdDSA; a misfit is an input
// error (exit 2), as golang-jwt's PEM parsers make it.
func keyFits(alg string, key any) error {
	var fits bool
	switch key.(type) {
	case *rsa.PrivateKey, *rsa.PublicKey:
		fits = strings.HasPrefix(alg, "RS") || strings.HasPrefix(alg, "PS")
	case *ecdsa.PrivateKey, *ecdsa.PublicKey:
		fits = strings.HasPrefix(alg, "ES")
	case ed25519.PrivateKey, ed25519.PublicKey:
		fits = alg == "EdDSA"
	}
	if !fits {
		return fmt.Errorf("a %T is no %s key", key, alg)
	}
	return nil
}
