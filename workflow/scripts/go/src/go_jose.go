package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"time"

	"github.com/go-jose/go-jose/v4"
	josejson "github.com/go-jose/go-jose/v4/json"
	"github.com/go-jose/go-jose/v4/jwt"
)

// goJose is github.com/go-jose/go-jose/v4 and its jwt package (go-jose/README.md).
type goJose struct{}

func (goJose) name() string      { return "go-jose" }
func (goJose) module() string    { return "github.com/go-jose/go-jose/v4" }
func (goJose) modules() []string { return []string{"github.com/go-jose/go-jose/v4"} }

func (goJose) has(alg string) error { return nil }

func (goJose) newSigner(alg string, data []byte) (signer, error) {
	key, err := jwsKey(alg, data, true)
	if err != nil {
		return nil, err
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(alg), Key: key},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return nil, err
	}
	return goJoseSigner{s}, nil
}

type goJoseSigner struct{ signer jose.Signer }

func (s goJoseSigner) sign(claims any) (string, error) {
	return jwt.Signed(s.signer).Claims(claims.(map[string]any)).Serialize()
}

// claims: go-jose serialises claims with its own fork of encoding/json, which writes an
// encoding/json.Number as a string; its own json.Number is written as the number it holds.
// So the parsed claims go through JSON once into a map whose numbers are go-jose's.
func (goJose) claims(parsed map[string]any) (any, error) {
	data, err := json.Marshal(parsed)
	if err != nil {
		return nil, err
	}
	decoder := josejson.NewDecoder(bytes.NewReader(data))
	decoder.SetNumberType(josejson.UnmarshalJSONNumber)
	var claims map[string]any
	err = decoder.Decode(&claims)
	return claims, err
}

// claimsMap: go-jose decodes claims with numbers as float64 (exact up to 2^53).
func (goJose) claimsMap(claims any) map[string]any { return claimsOf(claims) }

type goJoseVerifier struct {
	algorithms []jose.SignatureAlgorithm
	key        any
}

func (goJose) newVerifier(alg string, data []byte) (verifier, error) {
	key, err := jwsKey(alg, data, false)
	if err != nil {
		return nil, err
	}
	return &goJoseVerifier{[]jose.SignatureAlgorithm{jose.SignatureAlgorithm(alg)}, key}, nil
}

// joseStep wraps an error with the go-jose call it came from (its errors are mostly
// unexported strings: the call says what failed).
type joseStep struct {
	call string
	err  error
}

func (e *joseStep) Error() string { return e.err.Error() }
func (e *joseStep) Unwrap() error { return e.err }

// verify: jwt.Expected names no claim, so none is required; a `null` payload decodes into
// no map at all, so it is rejected.
func (v *goJoseVerifier) verify(token string) (any, error) {
	parsed, err := jwt.ParseSigned(token, v.algorithms)
	if err != nil {
		return nil, &joseStep{"jwt.ParseSigned", err}
	}
	var registered jwt.Claims
	var claims map[string]any
	if err := parsed.Claims(v.key, &registered, &claims); err != nil {
		return nil, &joseStep{"JSONWebToken.Claims", err}
	}
	if claims == nil {
		return nil, &joseStep{"JSONWebToken.Claims", errNotObject}
	}
	if err := registered.ValidateWithLeeway(jwt.Expected{Time: time.Now()}, 0); err != nil {
		return nil, &joseStep{"Claims.ValidateWithLeeway", err}
	}
	return claims, nil
}

func (v *goJoseVerifier) decode(token string) (any, error) {
	parsed, err := jwt.ParseSigned(token, v.algorithms)
	if err != nil {
		return nil, &joseStep{"jwt.ParseSigned", err}
	}
	var claims map[string]any
	if err := parsed.UnsafeClaimsWithoutVerification(&claims); err != nil {
		return nil, &joseStep{"JSONWebToken.UnsafeClaimsWithoutVerification", err}
	}
	return claims, nil
}

func (v *goJoseVerifier) verifySignature(token string) ([]byte, error) {
	parsed, err := jose.ParseSignedCompact(token, v.algorithms)
	if err != nil {
		return nil, err
	}
	return parsed.Verify(v.key)
}

var goJoseErrors = []knownError{
	{jose.ErrUnsupportedKeyType, "jose.ErrUnsupportedKeyType", false},
	{jose.ErrUnsupportedAlgorithm, "jose.ErrUnsupportedAlgorithm", false},
	{jose.ErrInvalidKeySize, "jose.ErrInvalidKeySize", false},
	{jose.ErrCryptoFailure, "jose.ErrCryptoFailure", true},
	{jose.ErrUnsupportedCriticalHeader, "jose.ErrUnsupportedCriticalHeader", true},
	{jwt.ErrExpired, "jwt.ErrExpired", true},
	{jwt.ErrNotValidYet, "jwt.ErrNotValidYet", true},
	{jwt.ErrIssuedInTheFuture, "jwt.ErrIssuedInTheFuture", true},
	{jwt.ErrUnmarshalNumericDate, "jwt.ErrUnmarshalNumericDate", true},
	{jwt.ErrUnmarshalAudience, "jwt.ErrUnmarshalAudience", true},
}

// classify: any error of go-jose's calls that is none of its exported ones is its
// verdict, named by the call.
func (goJose) classify(err error) (string, bool, bool) {
	if name, verdict, known := classifyKnown(err, goJoseErrors); known {
		return name, verdict, true
	}
	var step *joseStep
	if errors.As(err, &step) {
		return step.call, true, true
	}
	return "", false, false
}
