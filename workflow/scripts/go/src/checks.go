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

// checkJWS runs the checks before timing: a fresh token verifies and decodes into the
// claims, and its forgeries (and a token of another algorithm validly MACed with the
// verifying key's bytes) are rejected. `native` is the claims in the library's form.
func checkJWS(keys *jwsKeys, claims map[string]any, native any) error {
	token, err := keys.signer.sign(native)
	if err != nil {
		return fmt.Errorf("sign: %v", err)
	}
	got, err := keys.verifier.verify(token)
	if err != nil {
		return fmt.Errorf("its own token does not verify: %v", err)
	}
	if !reflect.DeepEqual(library.claimsMap(got), claims) {
		return errors.New("verify does not yield the signed claims")
	}
	decoded, err := keys.verifier.decode(token)
	if err != nil || !reflect.DeepEqual(library.claimsMap(decoded), claims) {
		return fmt.Errorf("decode does not yield the signed claims (%v)", err)
	}
	forged, err := forgeries(token)
	if err != nil {
		return err
	}
	other := "HS256"
	if keys.alg == "HS256" {
		other = "HS384"
	}
	forged["a token naming "+other] = macToken(other, keys.verifierPEM, strings.Split(token, ".")[1])
	for what, forgery := range forged {
		if _, err := keys.verifier.verify(forgery); err == nil {
			return fmt.Errorf("%s is accepted", what)
		}
	}
	return nil
}

// forgeries are the twins of a valid token a verifier must reject: one signature bit
// flipped, and unsigned under alg none.
func forgeries(token string) (map[string]string, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, fmt.Errorf("a token of %d segments", len(parts))
	}
	raw, err := b64.DecodeString(parts[2])
	if err != nil || len(raw) == 0 {
		return nil, errors.New("the token's signature is not base64url")
	}
	raw[0] ^= 1
	return map[string]string{
		"a flipped signature bit":    parts[0] + "." + parts[1] + "." + b64.EncodeToString(raw),
		"an unsigned alg:none token": b64.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + ".",
	}, nil
}

// macToken builds a token under an HS header by hand, MACed with `secret`.
func macToken(alg string, secret []byte, payload string) string {
	hashes := map[string]func() hash.Hash{"HS256": sha256.New, "HS384": sha512.New384}
	head := b64.EncodeToString([]byte(`{"alg":"`+alg+`","typ":"JWT"}`)) + "." + payload
	mac := hmac.New(hashes[alg], secret)
	mac.Write([]byte(head))
	return head + "." + b64.EncodeToString(mac.Sum(nil))
}
