package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	jwxroot "github.com/lestrrat-go/jwx/v3"
	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"
)

// jwx is github.com/lestrrat-go/jwx/v3: its jwt package on its jws and jwk packages
// (jwx/README.md). It signs and verifies with Go's own crypto/* packages.
type jwx struct{}

func (jwx) name() string   { return "jwx" }
func (jwx) module() string { return "github.com/lestrrat-go/jwx/v3" }

// modules: jwx and the modules it loads.
func (jwx) modules() []string {
	return []string{"github.com/lestrrat-go/", "github.com/segmentio/asm", "github.com/goccy/go-json", "golang.org/x/sys"}
}

// setup: jwx decodes claims' numbers as json.Number (jwx.WithUseNumber), so integers such
// as exp and the private claims' numbers stay exact, as the other drivers' do.
func (jwx) setup() {
	jwxroot.DecoderSettings(jwxroot.WithUseNumber(true))
}

// has: jwx's own registry (jwa.LookupSignatureAlgorithm) knows every contract algorithm.
func (jwx) has(alg string) error {
	if _, ok := jwa.LookupSignatureAlgorithm(alg); !ok {
		return fmt.Errorf("%w: jwx has no signature algorithm %s", errUnsupported, alg)
	}
	return nil
}

// jwxKey parses a key once with jwx's jwk package (jwk.ParseKey with jwk.WithPEM: PKCS#8 or
// SPKI) and exports it (jwk.Export) into the raw key its signers and verifiers compute
// with, so no call converts it again; the HMAC secret is the raw bytes.
func jwxKey(alg string, data []byte) (jwa.SignatureAlgorithm, any, error) {
	algorithm, _ := jwa.LookupSignatureAlgorithm(alg)
	if strings.HasPrefix(alg, "HS") {
		return algorithm, data, nil
	}
	key, err := jwk.ParseKey(data, jwk.WithPEM(true))
	if err != nil {
		return algorithm, nil, err
	}
	var raw any
	if err := jwk.Export(key, &raw); err != nil {
		return algorithm, nil, err
	}
	return algorithm, raw, keyFits(alg, raw)
}

func (jwx) newSigner(alg string, data []byte) (signer, error) {
	algorithm, key, err := jwxKey(alg, data)
	if err != nil {
		return nil, err
	}
	return jwxSigner{jwt.WithKey(algorithm, key)}, nil
}

// jwxSigner holds jwt.WithKey(alg, key), made once; sign is jwt.Sign(token, it).
type jwxSigner struct{ key jwt.SignEncryptParseOption }

func (s jwxSigner) sign(claims any) (string, error) {
	token, err := jwt.Sign(claims.(jwt.Token), s.key)
	return string(token), err
}

// claims: jwx signs a jwt.Token; the parsed claims are set into one (Token.Set), once.
func (jwx) claims(parsed map[string]any) (any, error) {
	token := jwt.New()
	for name, value := range parsed {
		if err := token.Set(name, value); err != nil {
			return nil, err
		}
	}
	return token, nil
}

// claimsMap reads a jwt.Token's claims: exp, iat and nbf (time.Time in jwx) as the
// seconds they stand for, aud as a list, every other claim as jwx decoded it.
func (jwx) claimsMap(claims any) map[string]any {
	token := claims.(jwt.Token)
	out := map[string]any{}
	for _, name := range token.Keys() {
		var when time.Time
		switch name {
		case jwt.ExpirationKey:
			when, _ = token.Expiration()
		case jwt.IssuedAtKey:
			when, _ = token.IssuedAt()
		case jwt.NotBeforeKey:
			when, _ = token.NotBefore()
		case jwt.AudienceKey:
			audience, _ := token.Audience()
			list := make([]any, len(audience))
			for i, item := range audience {
				list[i] = item
			}
			out[name] = list
			continue
		default:
			var value any
			if err := token.Get(name, &value); err == nil {
				out[name] = value
			}
			continue
		}
		out[name] = json.Number(strconv.FormatInt(when.Unix(), 10))
	}
	return out
}

// jwxVerifier holds jwt.Parse's options, made once, and the key for the JWS layer.
type jwxVerifier struct {
	options   []jwt.ParseOption
	algorithm jwa.SignatureAlgorithm
	key       any
}

// newVerifier: the verify policy in jwt.Parse's options, every item explicit:
//   - alg, signature: jwt.WithKey(ALG, key): the signature verified under ALG only, the
//     header's alg required to be ALG (jwx's compact fast path);
//   - exp, nbf, iat: jwt.WithValidate(true) runs jwx's default validators, which check
//     each claim when present (now >= exp, now < nbf, iat > now are invalid);
//   - leeway: jwt.WithAcceptableSkew(0), jwt.WithTruncation(0) (now is not rounded), now
//     jwt.WithClock(jwt.ClockFunc(time.Now));
//   - required_claims: no jwt.WithRequiredClaim, jwt.WithIssuer, WithAudience, WithSubject.
func (jwx) newVerifier(alg string, data []byte) (verifier, error) {
	algorithm, key, err := jwxKey(alg, data)
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

// verify: jwt.Parse. Its token always is a JSON object's claims (jwx refuses any other
// payload when it decodes the token).
func (v *jwxVerifier) verify(token string) (any, error) {
	return jwt.Parse([]byte(token), v.options...)
}

// decode: jwt.ParseInsecure, jwx's documented parse without verification or validation.
func (v *jwxVerifier) decode(token string) (any, error) {
	return jwt.ParseInsecure([]byte(token))
}

// verifySignature: jwx's JWS layer, jws.Verify with jws.WithKey(ALG, key) and
// jws.WithAlgorithmMatch(true) (without it jws.Verify ignores the header's alg), compact
// serialization only; it returns the payload as signed.
func (v *jwxVerifier) verifySignature(token string) ([]byte, error) {
	return jws.Verify([]byte(token), jws.WithKey(v.algorithm, v.key), jws.WithAlgorithmMatch(true), jws.WithCompact())
}

// jwxErrors are jwx's documented errors (its functions for errors.Is), most specific
// first; every error of jwt.Parse is a jwt.ParseError, the library's verdict.
var jwxErrors = []struct {
	err  error
	name string
}{
	{jwt.TokenExpiredError(), "jwt.TokenExpiredError"},
	{jwt.TokenNotYetValidError(), "jwt.TokenNotYetValidError"},
	{jwt.InvalidIssuedAtError(), "jwt.InvalidIssuedAtError"},
	{jwt.ValidateError(), "jwt.ValidateError"},
	{jws.VerificationError(), "jws.VerificationError"},
	{jws.VerifyError(), "jws.VerifyError"},
	{jwt.UnknownPayloadTypeError(), "jwt.UnknownPayloadTypeError"},
	{jwt.ParseError(), "jwt.ParseError"},
	{jws.ParseError(), "jws.ParseError"},
}

func (jwx) classify(err error) (string, bool, bool) {
	for _, known := range jwxErrors {
		if errors.Is(err, known.err) {
			return known.name, true, true
		}
	}
	return "", false, false
}
