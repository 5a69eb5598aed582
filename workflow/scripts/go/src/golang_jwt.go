package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// golangJWT is the go driver's own library, github.com/golang-jwt/jwt/v5 (README.md).
type golangJWT struct{}

func (golangJWT) name() string   { return "golang-jwt" }
func (golangJWT) module() string { return "github.com/golang-jwt/jwt/v5" }
func (golangJWT) modules() []string {
	return []string{"github.com/golang-jwt/jwt/v5", "github.com/google/uuid"}
}

// has: golang-jwt's own registry's answer (jwt.GetSigningMethod).
func (golangJWT) has(alg string) error {
	if jwt.GetSigningMethod(alg) == nil {
		return fmt.Errorf("%w: golang-jwt has no signing method %s", errUnsupported, alg)
	}
	return nil
}

// golangJWTKey parses a key once into the type golang-jwt signs or verifies with: the raw
// secret for HS*, else a PKCS#8 (private) or SPKI (public) PEM.
func golangJWTKey(method jwt.SigningMethod, data []byte, private bool) (any, error) {
	switch method.(type) {
	case *jwt.SigningMethodHMAC:
		return data, nil
	case *jwt.SigningMethodRSA, *jwt.SigningMethodRSAPSS:
		if private {
			return jwt.ParseRSAPrivateKeyFromPEM(data)
		}
		return jwt.ParseRSAPublicKeyFromPEM(data)
	case *jwt.SigningMethodECDSA:
		if private {
			return jwt.ParseECPrivateKeyFromPEM(data)
		}
		return jwt.ParseECPublicKeyFromPEM(data)
	case *jwt.SigningMethodEd25519:
		if private {
			return jwt.ParseEdPrivateKeyFromPEM(data)
		}
		return jwt.ParseEdPublicKeyFromPEM(data)
	}
	return nil, fmt.Errorf("%w: no key loader for %s", errUnsupported, method.Alg())
}

func (golangJWT) newSigner(alg string, data []byte) (signer, error) {
	method := jwt.GetSigningMethod(alg)
	key, err := golangJWTKey(method, data, true)
	if err != nil {
		return nil, err
	}
	return &golangJWTSigner{method, key}, nil
}

// claims: golang-jwt signs a jwt.MapClaims, the parsed map itself.
func (golangJWT) claims(parsed map[string]any) (any, error) { return jwt.MapClaims(parsed), nil }

func (golangJWT) claimsMap(claims any) map[string]any { return claims.(jwt.MapClaims) }

// golangJWTSigner is golang-jwt's ordinary signing call.
type golangJWTSigner struct {
	method jwt.SigningMethod
	key    any
}

func (s *golangJWTSigner) sign(claims any) (string, error) {
	return jwt.NewWithClaims(s.method, claims.(jwt.MapClaims)).SignedString(s.key)
}

// golangJWTVerifier checks tokens with one algorithm pinned and one key, both set up once.
type golangJWTVerifier struct {
	method  jwt.SigningMethod
	key     any
	parser  *jwt.Parser
	keyfunc jwt.Keyfunc
}

// newVerifier configures golang-jwt for the verify policy (workflow/scripts/README.md),
// every item explicitly. exp and nbf: golang-jwt's Validator always checks them when the
// claims have them (now >= exp + leeway and now < nbf - leeway are invalid); no option
// requires a claim (WithExpirationRequired, WithNotBeforeRequired, WithAudience,
// WithIssuer and WithSubject are left out), so none is required.
func (golangJWT) newVerifier(alg string, data []byte) (verifier, error) {
	method := jwt.GetSigningMethod(alg)
	key, err := golangJWTKey(method, data, false)
	if err != nil {
		return nil, err
	}
	return &golangJWTVerifier{
		method: method,
		key:    key,
		parser: jwt.NewParser(
			jwt.WithValidMethods([]string{method.Alg()}), // alg pinned
			jwt.WithLeeway(0),          // leeway 0 s for exp, nbf and iat
			jwt.WithIssuedAt(),         // iat > now + leeway is invalid
			jwt.WithTimeFunc(time.Now), // now: the wall clock
			jwt.WithJSONNumber(),       // claims' numbers kept exact
		),
		keyfunc: func(*jwt.Token) (any, error) { return key, nil },
	}, nil
}

// verify: the signature checked with the algorithm pinned, then the claims by the policy.
// The payload must be a JSON object: golang-jwt rejects an array, string or number as
// malformed, but encoding/json reads `null` into a map as no claims at all, so a token
// whose claims come out empty is rejected unless its payload is `{}`.
func (v *golangJWTVerifier) verify(token string) (any, error) {
	claims := jwt.MapClaims{}
	if _, err := v.parser.ParseWithClaims(token, claims, v.keyfunc); err != nil {
		return nil, err
	}
	if len(claims) == 0 && !v.payloadIsObject(token) {
		return nil, fmt.Errorf("%w: %w", jwt.ErrTokenMalformed, errNotObject)
	}
	return claims, nil
}

// payloadIsObject says whether a token the parser accepted has a JSON object as payload.
func (v *golangJWTVerifier) payloadIsObject(token string) bool {
	segments := strings.SplitN(token, ".", 3)
	payload, err := v.parser.DecodeSegment(segments[1])
	return err == nil && bytes.HasPrefix(bytes.TrimLeft(payload, " \t\r\n"), []byte("{"))
}

// decode reads a token's claims without checking its signature (Parser.ParseUnverified).
func (v *golangJWTVerifier) decode(token string) (any, error) {
	claims := jwt.MapClaims{}
	if _, _, err := v.parser.ParseUnverified(token, claims); err != nil {
		return nil, err
	}
	return claims, nil
}

// verifySignature: the header's alg must be the pinned method's, and the signature over
// the signing input must verify with the key, through golang-jwt's own signing method
// (SigningMethod.Verify). No claims are parsed, so the payload need not be JSON and no
// exp is read.
func (v *golangJWTVerifier) verifySignature(token string) ([]byte, error) {
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
	if alg, _ := fields["alg"].(string); alg != v.method.Alg() {
		return nil, fmt.Errorf("header alg %q is not the pinned %s", fields["alg"], v.method.Alg())
	}
	payloadBytes, err := segmentDecoder.DecodeSegment(payload)
	if err != nil {
		return nil, fmt.Errorf("payload: %v", err)
	}
	signatureBytes, err := segmentDecoder.DecodeSegment(signature)
	if err != nil {
		return nil, fmt.Errorf("signature: %v", err)
	}
	if err := v.method.Verify(header+"."+payload, signatureBytes, v.key); err != nil {
		return nil, err
	}
	return payloadBytes, nil
}

// golangJWTErrors are golang-jwt's documented errors, most specific first: the first one
// an error wraps names it. verdict: whether it is the library's verdict on the token
// (exit 1). Parser.ParseWithClaims wraps every error it returns in one of the last four;
// the key errors come from the signing method and concern the key, never the token (exit 4).
var golangJWTErrors = []struct {
	err     error
	name    string
	verdict bool
}{
	{jwt.ErrInvalidKey, "jwt.ErrInvalidKey", false},
	{jwt.ErrInvalidKeyType, "jwt.ErrInvalidKeyType", false},
	{jwt.ErrHashUnavailable, "jwt.ErrHashUnavailable", false},
	{jwt.ErrTokenExpired, "jwt.ErrTokenExpired", true},
	{jwt.ErrTokenNotValidYet, "jwt.ErrTokenNotValidYet", true},
	{jwt.ErrTokenUsedBeforeIssued, "jwt.ErrTokenUsedBeforeIssued", true},
	{jwt.ErrTokenRequiredClaimMissing, "jwt.ErrTokenRequiredClaimMissing", true},
	{jwt.ErrInvalidType, "jwt.ErrInvalidType", true},
	{jwt.ErrTokenSignatureInvalid, "jwt.ErrTokenSignatureInvalid", true},
	{jwt.ErrTokenUnverifiable, "jwt.ErrTokenUnverifiable", true},
	{jwt.ErrTokenMalformed, "jwt.ErrTokenMalformed", true},
	{jwt.ErrTokenInvalidClaims, "jwt.ErrTokenInvalidClaims", true},
}

func (golangJWT) classify(err error) (string, bool, bool) {
	for _, known := range golangJWTErrors {
		if errors.Is(err, known.err) {
			return known.name, known.verdict, true
		}
	}
	return "", false, false
}
