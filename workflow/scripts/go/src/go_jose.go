package main

import (
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	josejson "github.com/go-jose/go-jose/v4/json"
	"github.com/go-jose/go-jose/v4/jwt"
)

// goJose is github.com/go-jose/go-jose/v4 and its jwt package (go-jose/README.md). It
// signs and verifies with Go's own crypto/* packages; keys are the standard library's key
// types, which go-jose takes as they are (it has no PEM parser: crypto/x509 reads them).
type goJose struct{}

func (goJose) name() string      { return "go-jose" }
func (goJose) module() string    { return "github.com/go-jose/go-jose/v4" }
func (goJose) modules() []string { return []string{"github.com/go-jose/go-jose/v4"} }

// has: go-jose has every JWS algorithm of the contract.
func (goJose) has(alg string) error { return nil }

// joseKey parses a key file into the key type go-jose signs or verifies with: the raw
// secret ([]byte) for HS*, else *rsa, *ecdsa or ed25519 keys from a PKCS#8 or SPKI PEM.
func joseKey(alg string, data []byte, private bool) (any, error) {
	if strings.HasPrefix(alg, "HS") {
		return data, nil
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	var key any
	var err error
	if private {
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	} else {
		key, err = x509.ParsePKIXPublicKey(block.Bytes)
	}
	if err != nil {
		return nil, err
	}
	return key, keyFits(alg, key)
}

// newSigner builds go-jose's Signer once (jose.NewSigner: the key and the algorithm, the
// header's typ JWT); each sign is the jwt package's builder on it.
func (goJose) newSigner(alg string, data []byte) (signer, error) {
	key, err := joseKey(alg, data, true)
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

// sign: jwt.Signed(signer).Claims(claims).Serialize(), go-jose's ordinary JWT signing.
func (s goJoseSigner) sign(claims any) (string, error) {
	return jwt.Signed(s.signer).Claims(claims.(map[string]any)).Serialize()
}

// claims: go-jose serialises claims with its own fork of encoding/json, which writes an
// encoding/json.Number as a string; its own json.Number is written as the number it holds.
// So the parsed claims' numbers become go-jose's json.Number, once, before anything is timed.
func (goJose) claims(parsed map[string]any) (any, error) {
	return joseNumbers(parsed).(map[string]any), nil
}

func joseNumbers(value any) any {
	return mapLeaves(value, func(leaf any) any {
		if number, ok := leaf.(json.Number); ok {
			return josejson.Number(number)
		}
		return leaf
	})
}

// claimsMap: go-jose decodes the claims into a map[string]any with its json fork, numbers
// as float64; they are written back as json.Number (the shortest decimal that is the
// float64), as `verify` prints claims.
func (goJose) claimsMap(claims any) map[string]any {
	return numbersOfFloats(claims.(map[string]any)).(map[string]any)
}

func numbersOfFloats(value any) any {
	return mapLeaves(value, func(leaf any) any {
		if number, ok := leaf.(float64); ok {
			return json.Number(strconv.FormatFloat(number, 'f', -1, 64))
		}
		return leaf
	})
}

// mapLeaves copies a decoded JSON value with `leaf` applied to every value that is neither
// an object nor an array (a nil object stays nil).
func mapLeaves(value any, leaf func(any) any) any {
	switch v := value.(type) {
	case map[string]any:
		if v == nil {
			return v
		}
		out := make(map[string]any, len(v))
		for key, item := range v {
			out[key] = mapLeaves(item, leaf)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = mapLeaves(item, leaf)
		}
		return out
	}
	return leaf(value)
}

// goJoseVerifier holds what go-jose verifies with, set up once: the one algorithm
// jwt.ParseSigned may accept, and the key.
type goJoseVerifier struct {
	algorithms []jose.SignatureAlgorithm
	key        any
}

func (goJose) newVerifier(alg string, data []byte) (verifier, error) {
	key, err := joseKey(alg, data, false)
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

// verify is the verify policy in go-jose's calls, every item explicit:
//   - alg: jwt.ParseSigned(token, [ALG]) refuses any header alg but ALG (none included);
//   - signature: JSONWebToken.Claims(key, ...) verifies it before decoding the claims;
//   - exp, nbf, iat, leeway: Claims.ValidateWithLeeway(jwt.Expected{Time: time.Now()}, 0):
//     exp (now > exp), nbf (now < nbf) and iat (iat > now) whenever present, leeway 0;
//   - required_claims: jwt.Expected names no issuer, subject, audience or ID, and go-jose
//     requires no claim.
//
// The claims are decoded twice, as go-jose reads them: into jwt.Claims (the registered
// claims it validates) and into a map (all of them). A payload of `null` decodes into no
// map at all: it is not a JSON object, so the token is rejected.
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

// decode: JSONWebToken.UnsafeClaimsWithoutVerification, go-jose's documented way to read
// the claims unverified (jwt.ParseSigned still pins the algorithm).
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

// verifySignature: go-jose's JWS layer, jose.ParseSignedCompact(token, [ALG]) (the header's
// alg must be ALG) and JSONWebSignature.Verify(key), which returns the payload as signed.
func (v *goJoseVerifier) verifySignature(token string) ([]byte, error) {
	parsed, err := jose.ParseSignedCompact(token, v.algorithms)
	if err != nil {
		return nil, err
	}
	return parsed.Verify(v.key)
}

// goJoseErrors are go-jose's exported errors; verdict: whether it is the library's verdict
// on the token. The key errors say nothing about the token.
var goJoseErrors = []struct {
	err     error
	name    string
	verdict bool
}{
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

// classify: an exported error names itself; any other error of jwt.ParseSigned (a
// malformed token, a header alg not allowed) or of decoding the claims (not JSON, not an
// object) is go-jose's verdict, named by the call.
func (goJose) classify(err error) (string, bool, bool) {
	for _, known := range goJoseErrors {
		if errors.Is(err, known.err) {
			return known.name, known.verdict, true
		}
	}
	var step *joseStep
	if errors.As(err, &step) {
		return step.call, true, true
	}
	return "", false, false
}
