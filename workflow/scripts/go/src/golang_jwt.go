package main

import (
	"bytes"
	"encoding/json"
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

func (golangJWT) has(alg string) error {
	if jwt.GetSigningMethod(alg) == nil {
		return fmt.Errorf("%w: golang-jwt has no signing method %s", errUnsupported, alg)
	}
	return nil
}

func (golangJWT) newSigner(alg string, data []byte) (signer, error) {
	key, err := jwsKey(alg, data, true)
	if err != nil {
		return nil, err
	}
	return &golangJWTSigner{jwt.GetSigningMethod(alg), key}, nil
}

func (golangJWT) claims(parsed map[string]any) (any, error) { return jwt.MapClaims(parsed), nil }

func (golangJWT) claimsMap(claims any) map[string]any { return claims.(jwt.MapClaims) }

type golangJWTSigner struct {
	method jwt.SigningMethod
	key    any
}

func (s *golangJWTSigner) sign(claims any) (string, error) {
	return jwt.NewWithClaims(s.method, claims.(jwt.MapClaims)).SignedString(s.key)
}

type golangJWTVerifier struct {
	method  jwt.SigningMethod
	key     any
	parser  *jwt.Parser
	keyfunc jwt.Keyfunc
}

// newVerifier: golang-jwt checks exp and nbf whenever present; no option requires a claim.
func (golangJWT) newVerifier(alg string, data []byte) (verifier, error) {
	method := jwt.GetSigningMethod(alg)
	key, err := jwsKey(alg, data, false)
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

// verify: encoding/json reads a `null` payload into a map as no claims at all, so a token
// whose claims come out empty is rejected unless its payload is an object.
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

func (v *golangJWTVerifier) decode(token string) (any, error) {
	claims := jwt.MapClaims{}
	if _, _, err := v.parser.ParseUnverified(token, claims); err != nil {
		return nil, err
	}
	return claims, nil
}

// verifySignature: the header's alg pinned, the signature checked by SigningMethod.Verify.
func (v *golangJWTVerifier) verifySignature(token string) ([]byte, error) {
	segments := strings.Split(token, ".")
	if len(segments) != 3 {
		return nil, fmt.Errorf("a compact JWS has 3 segments, this has %d", len(segments))
	}
	decoded := make([][]byte, 3)
	for i, segment := range segments {
		var err error
		if decoded[i], err = v.parser.DecodeSegment(segment); err != nil {
			return nil, fmt.Errorf("segment %d: %v", i+1, err)
		}
	}
	var header map[string]any // (a struct would match "ALG" too)
	if err := json.Unmarshal(decoded[0], &header); err != nil {
		return nil, fmt.Errorf("header: not a JSON object: %v", err)
	}
	if alg, _ := header["alg"].(string); alg != v.method.Alg() {
		return nil, fmt.Errorf("header alg %q is not the pinned %s", header["alg"], v.method.Alg())
	}
	if err := v.method.Verify(segments[0]+"."+segments[1], decoded[2], v.key); err != nil {
		return nil, err
	}
	return decoded[1], nil
}

// golangJWTErrors: the key errors concern the key, never the token.
var golangJWTErrors = []knownError{
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
	return classifyKnown(err, golangJWTErrors)
}
