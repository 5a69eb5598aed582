package main

import (
	"fmt"
	"time"

	jwxroot "github.com/lestrrat-go/jwx/v3"
	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"
)

// jwx is github.com/lestrrat-go/jwx/v3: its jwt package on its jws package (jwx/README.md).
type jwx struct{}

func (jwx) name() string   { return "jwx" }
func (jwx) module() string { return "github.com/lestrrat-go/jwx/v3" }

func (jwx) modules() []string {
	return []string{"github.com/lestrrat-go/", "github.com/segmentio/asm", "github.com/goccy/go-json", "golang.org/x/sys"}
}

// setup: jwx decodes claims' numbers as json.Number, so integers stay exact.
func (jwx) setup() {
	jwxroot.DecoderSettings(jwxroot.WithUseNumber(true))
}

func (jwx) has(alg string) error {
	if _, ok := jwa.LookupSignatureAlgorithm(alg); !ok {
		return fmt.Errorf("%w: jwx has no signature algorithm %s", errUnsupported, alg)
	}
	return nil
}

// jwxKey is jwx's algorithm and the raw key its signers and verifiers compute with.
func jwxKey(alg string, data []byte, private bool) (jwa.SignatureAlgorithm, any, error) {
	algorithm, _ := jwa.LookupSignatureAlgorithm(alg)
	key, err := jwsKey(alg, data, private)
	return algorithm, key, err
}

func (jwx) newSigner(alg string, data []byte) (signer, error) {
	algorithm, key, err := jwxKey(alg, data, true)
	if err != nil {
		return nil, err
	}
	return jwxSigner{jwt.WithKey(algorithm, key)}, nil
}

type jwxSigner struct{ key jwt.SignEncryptParseOption }

func (s jwxSigner) sign(claims any) (string, error) {
	token, err := jwt.Sign(claims.(jwt.Token), s.key)
	return string(token), err
}

func (jwx) claims(parsed map[string]any) (any, error) {
	token := jwt.New()
	for name, value := range parsed {
		if err := token.Set(name, value); err != nil {
			return nil, err
		}
	}
	return token, nil
}

// claimsMap: jwx writes a jwt.Token's exp, iat and nbf (time.Time in jwx) as the seconds
// they stand for, aud as a list.
func (jwx) claimsMap(claims any) map[string]any { return claimsOf(claims) }

type jwxVerifier struct {
	options   []jwt.ParseOption
	algorithm jwa.SignatureAlgorithm
	key       any
}

// newVerifier: WithValidate's default validators check exp, nbf and iat when present;
// WithTruncation(0) leaves now unrounded; no option requires a claim.
func (jwx) newVerifier(alg string, data []byte) (verifier, error) {
	algorithm, key, err := jwxKey(alg, data, false)
	if err != nil {
		return nil, err
	}
	return &jwxVerifier{
		options: []jwt.ParseOption{
			jwt.WithKey(algorithm, key),
			jwt.WithValidate(true),
			jwt.WithAcceptableSkew(0),
			jwt.WithTruncation(0),
			jwt.WithClock(jwt.ClockFunc(time.Now)),
		},
		algorithm: algorithm,
		key:       key,
	}, nil
}

// verify: jwx refuses a payload that is no JSON object.
func (v *jwxVerifier) verify(token string) (any, error) {
	return jwt.Parse([]byte(token), v.options...)
}

func (v *jwxVerifier) decode(token string) (any, error) {
	return jwt.ParseInsecure([]byte(token))
}

// verifySignature: jwx's JWS layer; without WithAlgorithmMatch jws.Verify ignores the
// header's alg.
func (v *jwxVerifier) verifySignature(token string) ([]byte, error) {
	return jws.Verify([]byte(token), jws.WithKey(v.algorithm, v.key), jws.WithAlgorithmMatch(true), jws.WithCompact())
}

// jwxErrors: every error of jwt.Parse is a jwt.ParseError, the library's verdict.
var jwxErrors = []knownError{
	{jwt.TokenExpiredError(), "jwt.TokenExpiredError", true},
	{jwt.TokenNotYetValidError(), "jwt.TokenNotYetValidError", true},
	{jwt.InvalidIssuedAtError(), "jwt.InvalidIssuedAtError", true},
	{jwt.ValidateError(), "jwt.ValidateError", true},
	{jws.VerificationError(), "jws.VerificationError", true},
	{jws.VerifyError(), "jws.VerifyError", true},
	{jwt.UnknownPayloadTypeError(), "jwt.UnknownPayloadTypeError", true},
	{jwt.ParseError(), "jwt.ParseError", true},
	{jws.ParseError(), "jws.ParseError", true},
}

func (jwx) classify(err error) (string, bool, bool) {
	return classifyKnown(err, jwxErrors)
}
