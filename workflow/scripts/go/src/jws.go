package main

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// contractAlgorithms are the JWS names the contract may ask for; which of them golang-jwt
// can do is its own registry's answer (jwt.GetSigningMethod).
var contractAlgorithms = []string{
	"HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
	"ES256", "ES384", "ES512", "EdDSA",
}

func lookupMethod(alg string) (jwt.SigningMethod, error) {
	if !slices.Contains(contractAlgorithms, alg) {
		return nil, usagef("--alg: unknown JWS algorithm %q", alg)
	}
	method := jwt.GetSigningMethod(alg)
	if method == nil {
		return nil, fmt.Errorf("%w: golang-jwt has no signing method %s", errUnsupported, alg)
	}
	return method, nil
}

func isHMAC(method jwt.SigningMethod) bool {
	_, ok := method.(*jwt.SigningMethodHMAC)
	return ok
}

// loadSigningKey parses a signing key once into the type golang-jwt signs with: the raw
// secret for HS*, else a PKCS#8 PEM.
func loadSigningKey(method jwt.SigningMethod, path string) (any, error) {
	data, err := readInput(path)
	if err != nil {
		return nil, err
	}
	var key any
	switch method.(type) {
	case *jwt.SigningMethodHMAC:
		return data, nil
	case *jwt.SigningMethodRSA, *jwt.SigningMethodRSAPSS:
		key, err = jwt.ParseRSAPrivateKeyFromPEM(data)
	case *jwt.SigningMethodECDSA:
		key, err = jwt.ParseECPrivateKeyFromPEM(data)
	case *jwt.SigningMethodEd25519:
		key, err = jwt.ParseEdPrivateKeyFromPEM(data)
	default:
		return nil, fmt.Errorf("%w: no key loader for %s", errUnsupported, method.Alg())
	}
	if err != nil {
		return nil, usagef("%s: not a %s private key: %v", path, method.Alg(), err)
	}
	return key, nil
}

// loadVerifyingKey parses a verifying key (the secret, or an SPKI PEM) and returns its
// file's bytes too: the key-confusion check MACs with them.
func loadVerifyingKey(method jwt.SigningMethod, path string) (any, []byte, error) {
	data, err := readInput(path)
	if err != nil {
		return nil, nil, err
	}
	var key any
	switch method.(type) {
	case *jwt.SigningMethodHMAC:
		return data, data, nil
	case *jwt.SigningMethodRSA, *jwt.SigningMethodRSAPSS:
		key, err = jwt.ParseRSAPublicKeyFromPEM(data)
	case *jwt.SigningMethodECDSA:
		key, err = jwt.ParseECPublicKeyFromPEM(data)
	case *jwt.SigningMethodEd25519:
		key, err = jwt.ParseEdPublicKeyFromPEM(data)
	default:
		return nil, nil, fmt.Errorf("%w: no key loader for %s", errUnsupported, method.Alg())
	}
	if err != nil {
		return nil, nil, usagef("%s: not a %s public key: %v", path, method.Alg(), err)
	}
	return key, data, nil
}

// keyBits is the size the contract's key_bits column names for a parsed key.
func keyBits(key any) int {
	switch k := key.(type) {
	case []byte:
		return 8 * len(k)
	case *rsa.PrivateKey:
		return k.N.BitLen()
	case *rsa.PublicKey:
		return k.N.BitLen()
	case *ecdsa.PrivateKey:
		return k.Curve.Params().BitSize
	case *ecdsa.PublicKey:
		return k.Curve.Params().BitSize
	case ed25519.PrivateKey, ed25519.PublicKey:
		return 256
	}
	return 0
}

// decodeClaims parses one JSON object the way the verifier reads claims back
// (numbers kept as json.Number, so integers round-trip exactly).
func decodeClaims(data []byte) (jwt.MapClaims, error) {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	var claims jwt.MapClaims
	if err := decoder.Decode(&claims); err != nil {
		return nil, err
	}
	if claims == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	if decoder.More() {
		return nil, fmt.Errorf("trailing data after the JSON object")
	}
	return claims, nil
}

// readClaims reads a claims file (one JSON object); it returns the file's bytes too.
func readClaims(path string) (jwt.MapClaims, []byte, error) {
	data, err := readInput(path)
	if err != nil {
		return nil, nil, err
	}
	claims, err := decodeClaims(data)
	if err != nil {
		return nil, nil, usagef("%s: %v", path, err)
	}
	return claims, data, nil
}

// readRecords reads JSON Lines: one claims object per line, and each line's bytes.
func readRecords(path string) ([]jwt.MapClaims, [][]byte, error) {
	data, err := readInput(path)
	if err != nil {
		return nil, nil, err
	}
	var records []jwt.MapClaims
	var lines [][]byte
	scanner := bufio.NewScanner(bytes.NewReader(data))
	scanner.Buffer(make([]byte, 0, 1<<16), len(data)+1)
	for number := 1; scanner.Scan(); number++ {
		line := slices.Clone(scanner.Bytes())
		claims, err := decodeClaims(line)
		if err != nil {
			return nil, nil, usagef("%s:%d: not a JSON object: %v", path, number, err)
		}
		records = append(records, claims)
		lines = append(lines, line)
	}
	if len(records) == 0 {
		return nil, nil, usagef("%s: no records", path)
	}
	return records, lines, nil
}

// signClaims is golang-jwt's ordinary signing call.
func signClaims(method jwt.SigningMethod, key any, claims jwt.MapClaims) (string, error) {
	return jwt.NewWithClaims(method, claims).SignedString(key)
}

// verifier checks tokens with one algorithm pinned and one key, both set up once.
type verifier struct {
	parser  *jwt.Parser
	keyfunc jwt.Keyfunc
}

// newVerifier configures golang-jwt for the verify policy (workflow/scripts/README.md),
// every item explicitly. exp and nbf: golang-jwt's Validator always checks them when the
// claims have them (now >= exp + leeway and now < nbf - leeway are invalid); no option
// requires a claim (WithExpirationRequired, WithNotBeforeRequired, WithAudience,
// WithIssuer and WithSubject are left out), so none is required.
func newVerifier(method jwt.SigningMethod, key any) *verifier {
	return &verifier{
		parser: jwt.NewParser(
			jwt.WithValidMethods([]string{method.Alg()}), // alg pinned
			jwt.WithLeeway(0),          // leeway 0 s for exp, nbf and iat
			jwt.WithIssuedAt(),         // iat > now + leeway is invalid
			jwt.WithTimeFunc(time.Now), // now: the wall clock
			jwt.WithJSONNumber(),       // claims' numbers kept exact
		),
		keyfunc: func(*jwt.Token) (any, error) { return key, nil },
	}
}

// verify is the one verify call of `verify`, `verify-batch` and every timed verify: the
// signature checked with the algorithm pinned, then the claims by the policy. The payload
// must be a JSON object: golang-jwt rejects an array, string or number as malformed, but
// encoding/json reads `null` into a map as no claims at all, so a token whose claims come
// out empty is rejected unless its payload is `{}`.
func (v *verifier) verify(token string) (jwt.MapClaims, error) {
	claims := jwt.MapClaims{}
	if _, err := v.parser.ParseWithClaims(token, claims, v.keyfunc); err != nil {
		return nil, err
	}
	if len(claims) == 0 && !v.payloadIsObject(token) {
		return nil, fmt.Errorf("%w: the claims set is not a JSON object", jwt.ErrTokenMalformed)
	}
	return claims, nil
}

// payloadIsObject says whether a token the parser accepted has a JSON object as payload.
func (v *verifier) payloadIsObject(token string) bool {
	segments := strings.SplitN(token, ".", 3)
	payload, err := v.parser.DecodeSegment(segments[1])
	return err == nil && bytes.HasPrefix(bytes.TrimLeft(payload, " \t\r\n"), []byte("{"))
}

// decode reads a token's claims without checking its signature.
func (v *verifier) decode(token string) (jwt.MapClaims, error) {
	claims := jwt.MapClaims{}
	if _, _, err := v.parser.ParseUnverified(token, claims); err != nil {
		return nil, err
	}
	return claims, nil
}

// verifySignature checks a compact JWS and nothing else, returning its payload's bytes
// exactly as signed: the header's alg must be the pinned method's, and the signature over
// the signing input must verify with the key, through golang-jwt's own signing method
// (SigningMethod.Verify). No claims are parsed, so the payload need not be JSON and no
// exp is read.
func verifySignature(method jwt.SigningMethod, key any, token string) ([]byte, error) {
	segments := strings.Split(token, ".")
	if len(segments) != 3 {
		return nil, fmt.Errorf("a compact JWS has 3 segments, this has %d", len(segments))
	}
	header, payload, signature := segments[0], segments[1], segments[2]
	segmentDecoder := jwt.NewParser()
	headerJSON, err := segmentDecoder.DecodeSegment(header)
	if err != nil {
		return nil, fmt.Errorf("header: %v", err)
	}
	var fields map[string]any
	if err := json.Unmarshal(headerJSON, &fields); err != nil {
		return nil, fmt.Errorf("header: not a JSON object: %v", err)
	}
	if alg, _ := fields["alg"].(string); alg != method.Alg() {
		return nil, fmt.Errorf("header alg %q is not the pinned %s", fields["alg"], method.Alg())
	}
	payloadBytes, err := segmentDecoder.DecodeSegment(payload)
	if err != nil {
		return nil, fmt.Errorf("payload: %v", err)
	}
	signatureBytes, err := segmentDecoder.DecodeSegment(signature)
	if err != nil {
		return nil, fmt.Errorf("signature: %v", err)
	}
	if err := method.Verify(header+"."+payload, signatureBytes, key); err != nil {
		return nil, err
	}
	return payloadBytes, nil
}
