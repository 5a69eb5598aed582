package main

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

// jwsLibrary is one JWT library's calls (workflow/scripts/README.md, "A further library of
// a language"), one file each. Keys are parsed, and signers and verifiers built, once
// (untimed); sign, verify, decode and verifySignature are the timed calls.
type jwsLibrary interface {
	// name is the implementation column; module the Go module of implementation_version;
	// modules the module paths (or prefixes ending in "/") `versions` lists.
	name() string
	module() string
	modules() []string
	// has is nil, or an error wrapping errUnsupported when the library lacks alg.
	has(alg string) error
	// newVerifier pins alg and sets every item of the verify policy explicitly.
	newSigner(alg string, key []byte) (signer, error)
	newVerifier(alg string, key []byte) (verifier, error)
	// claims turns parsed claims into the value the library signs, once per input;
	// claimsMap reads back what verify or decode returned, numbers as json.Number.
	claims(parsed map[string]any) (any, error)
	claimsMap(claims any) map[string]any
	// classify names an error of verify or decode and says whether it is the library's
	// verdict (exit 1) or a failure (exit 4); known false for an undocumented error.
	classify(err error) (name string, verdict, known bool)
}

// knownError is one of a library's documented errors, and whether it is its verdict.
type knownError struct {
	err     error
	name    string
	verdict bool
}

// classifyKnown is classify over a library's documented errors, most specific first.
func classifyKnown(err error, known []knownError) (string, bool, bool) {
	for _, k := range known {
		if errors.Is(err, k.err) {
			return k.name, k.verdict, true
		}
	}
	return "", false, false
}

// signer signs claims (the value jwsLibrary.claims made) into a compact JWS.
type signer interface {
	sign(claims any) (string, error)
}

// verifier checks tokens with one algorithm pinned and one key: verify is every verify
// call (the payload must be a JSON object), decode skips the signature, verifySignature
// (`verify --signature-only`) checks only the JWS and returns the payload as signed.
type verifier interface {
	verify(token string) (any, error)
	decode(token string) (any, error)
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
		names := strings.Join(slices.Sorted(maps.Keys(libraries)), ", ")
		return usagef("JWTBENCH_LIBRARY: unknown library %q (this driver has %s)", name, names)
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

// contractAlgorithms are the JWS names the contract may ask for (jwsLibrary.has: which).
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

func loadSigner(alg, path string) (signer, error) {
	s, _, err := loadKey(alg, path, "private", library.newSigner)
	return s, err
}

// loadVerifier also returns the key file's bytes (the key-confusion check MACs with them).
func loadVerifier(alg, path string) (verifier, []byte, error) {
	return loadKey(alg, path, "public", library.newVerifier)
}

// loadKey reads a key file into the library's signer or verifier (an input error naming
// the file if the library cannot parse it).
func loadKey[T any](alg, path, kind string, build func(string, []byte) (T, error)) (T, []byte, error) {
	var built T
	if err := checkAlgorithm(alg); err != nil {
		return built, nil, err
	}
	data, err := readInput(path)
	if err != nil {
		return built, nil, err
	}
	built, err = build(alg, data)
	if err != nil && !errors.Is(err, errUnsupported) {
		err = usagef("%s: not a %s %s key: %v", path, alg, kind, err)
	}
	return built, data, err
}

// signable is library.claims, a failure naming the input.
func signable(claims map[string]any, what string) (any, error) {
	value, err := library.claims(claims)
	if err != nil {
		return nil, usagef("%s: %s cannot take these claims: %v", what, library.name(), err)
	}
	return value, nil
}

// errNotObject is the reason a payload that is no JSON object fails, whatever the library.
var errNotObject = errors.New("the claims set is not a JSON object")

// jwsKey parses a key file into the standard library's key type every adapter takes: the
// raw secret for HS*, else a PEM of the algorithm's family.
func jwsKey(alg string, data []byte, private bool) (any, error) {
	if strings.HasPrefix(alg, "HS") {
		return data, nil
	}
	key, err := parsePEM(data, private)
	if err != nil {
		return nil, err
	}
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
		return nil, fmt.Errorf("a %T is no %s key", key, alg)
	}
	return key, nil
}

// parsePEM parses a PKCS#8 private key or an SPKI public key.
func parsePEM(data []byte, private bool) (any, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	if private {
		return x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	return x509.ParsePKIXPublicKey(block.Bytes)
}

// claimsOf reads claims back through JSON, numbers as json.Number (nil if no object).
func claimsOf(claims any) map[string]any {
	data, _ := json.Marshal(claims)
	parsed, _ := decodeClaims(data)
	return parsed
}
