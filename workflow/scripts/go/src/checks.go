package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"reflect"
	"strings"
)

var b64 = base64.RawURLEncoding

// jwsKeys is one algorithm's keys, parsed once into the library's key objects, with the
// signer and the verifier built on them.
type jwsKeys struct {
	alg         string
	signer      signer
	verifier    verifier
	verifierPEM []byte // the verifying key file's bytes (the secret for HS*)
}

func loadJWSKeys(alg, privatePath, publicPath string) (*jwsKeys, error) {
	signer, err := loadSigner(alg, privatePath)
	if err != nil {
		return nil, err
	}
	verifier, raw, err := loadVerifier(alg, publicPath)
	if err != nil {
		return nil, err
	}
	return &jwsKeys{alg, signer, verifier, raw}, nil
}

// sign signs claims in the library's form (jwsLibrary.claims).
func (k *jwsKeys) sign(claims any) (string, error) {
	return k.signer.sign(claims)
}

// checkJWS runs the checks before timing: a fresh token verifies and yields the claims, and
// the forgeries (flipped signature bit, alg none, another algorithm validly MACed) are rejected.
// `native` is the claims in the library's form.
func checkJWS(keys *jwsKeys, claims map[string]any, native any) error {
	token, err := keys.sign(native)
	if err != nil {
		return fmt.Errorf("sign: %v", err)
	}
	got, err := keys.verifier.verify(token)
	if err != nil {
		return fmt.Errorf("its own token does not verify: %v", err)
	}
	if !sameClaims(library.claimsMap(got), claims) {
		return errors.New("verify does not yield the signed claims")
	}
	decoded, err := keys.verifier.decode(token)
	if err != nil || !sameClaims(library.claimsMap(decoded), claims) {
		return fmt.Errorf("decode does not yield the signed claims (%v)", err)
	}
	header, payload, signature, _ := splitToken(token)
	raw, err := b64.DecodeString(signature)
	if err != nil || len(raw) == 0 {
		return errors.New("the token's signature is not base64url")
	}
	raw[0] ^= 1
	forgeries := map[string]string{
		"a flipped signature bit":    header + "." + payload + "." + b64.EncodeToString(raw),
		"an unsigned alg:none token": b64.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + payload + ".",
	}
	other, secret := "HS256", keys.verifierPEM
	if keys.alg == "HS256" {
		other = "HS384"
	}
	forgeries["a token naming "+other] = macToken(other, secret, payload)
	for what, forged := range forgeries {
		if _, err := keys.verifier.verify(forged); err == nil {
			return fmt.Errorf("%s is accepted", what)
		}
	}
	return nil
}

func splitToken(token string) (header, payload, signature string, ok bool) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

// macToken builds a token under an HS header by hand, MACed with `secret`.
func macToken(alg string, secret []byte, payload string) string {
	hashes := map[string]func() hash.Hash{"HS256": sha256.New, "HS384": sha512.New384}
	head := b64.EncodeToString([]byte(`{"alg":"`+alg+`","typ":"JWT"}`)) + "." + payload
	mac := hmac.New(hashes[alg], secret)
	mac.Write([]byte(head))
	return head + "." + b64.EncodeToString(mac.Sum(nil))
}

func sameClaims(a, b map[string]any) bool { return reflect.DeepEqual(a, b) }

func isUnsupported(err error) bool { return errors.Is(err, errUnsupported) }
