package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
)

// signatureScheme is one signature algorithm of suites primitive and keygen.
type signatureScheme struct {
	family string      // RSA, ECDSA, Ed25519
	hash   crypto.Hash // 0 for Ed25519, which signs the message itself
}

var signatureSchemes = map[string]signatureScheme{
	"RSA-SHA256":   {"RSA", crypto.SHA256},
	"RSA-SHA512":   {"RSA", crypto.SHA512},
	"ECDSA-SHA256": {"ECDSA", crypto.SHA256},
	"ECDSA-SHA512": {"ECDSA", crypto.SHA512},
	"Ed25519":      {"Ed25519", 0},
}

var curves = map[int]elliptic.Curve{256: elliptic.P256(), 384: elliptic.P384(), 521: elliptic.P521()}

// sign signs the message, the library hashing it: RSA PKCS#1 v1.5, ECDSA ASN.1 DER.
func (s signatureScheme) sign(key crypto.Signer, message []byte) ([]byte, error) {
	return crypto.SignMessage(key, rand.Reader, message, s.hash)
}

func (s signatureScheme) verify(public crypto.PublicKey, message, signature []byte) bool {
	switch key := public.(type) {
	case *rsa.PublicKey:
		return rsa.VerifyPKCS1v15(key, s.hash, s.digest(message), signature) == nil
	case *ecdsa.PublicKey:
		return ecdsa.VerifyASN1(key, s.digest(message), signature)
	case ed25519.PublicKey:
		return ed25519.Verify(key, message, signature)
	}
	return false
}

func (s signatureScheme) digest(message []byte) []byte {
	h := s.hash.New()
	h.Write(message)
	return h.Sum(nil)
}

// generate makes a new key pair: RSA with e = 65537 (Go's only exponent), ECDSA on the
// NIST curve of that size.
func (s signatureScheme) generate(bits int) (crypto.Signer, error) {
	switch s.family {
	case "RSA":
		return rsa.GenerateKey(rand.Reader, bits)
	case "ECDSA":
		return ecdsa.GenerateKey(curves[bits], rand.Reader)
	}
	_, private, err := ed25519.GenerateKey(rand.Reader)
	return private, err
}

// checkKeySize says whether a key is of the scheme's family and size (RSA: and e = 65537).
func (s signatureScheme) checkKeySize(public crypto.PublicKey, bits int) error {
	switch key := public.(type) {
	case *rsa.PublicKey:
		if s.family == "RSA" && key.N.BitLen() == bits && key.E == 65537 {
			return nil
		}
		return fmt.Errorf("an RSA key of %d bits (e = %d), not %s-%d", key.N.BitLen(), key.E, s.family, bits)
	case *ecdsa.PublicKey:
		if s.family == "ECDSA" && key.Curve == curves[bits] {
			return nil
		}
		return fmt.Errorf("an EC key on %s, not %s-%d", key.Curve.Params().Name, s.family, bits)
	case ed25519.PublicKey:
		if s.family == "Ed25519" {
			return nil
		}
	}
	return fmt.Errorf("a %T, not a %s key", public, s.family)
}

// checkPair is the untimed check: the key is of the scheme's family and size, a signature
// verifies, and with the lowest bit of its first byte flipped it does not.
func (s signatureScheme) checkPair(private crypto.Signer, public crypto.PublicKey, bits int, message []byte) error {
	if err := s.checkKeySize(public, bits); err != nil {
		return err
	}
	signature, err := s.sign(private, message)
	if err != nil {
		return fmt.Errorf("sign: %v", err)
	}
	if !s.verify(public, message, signature) {
		return fmt.Errorf("a fresh signature does not verify")
	}
	signature[0] ^= 1
	if s.verify(public, message, signature) {
		return fmt.Errorf("a signature with a flipped bit verifies")
	}
	return nil
}

func loadPEMPair(privatePath, publicPath string) (crypto.Signer, crypto.PublicKey, error) {
	var keys [2]any
	for i, path := range []string{privatePath, publicPath} {
		data, err := readInput(path)
		if err != nil {
			return nil, nil, err
		}
		if keys[i], err = parsePEM(data, i == 0); err != nil {
			return nil, nil, usagef("%s: not a PKCS#8 private or SPKI public key: %v", path, err)
		}
	}
	private, ok := keys[0].(crypto.Signer)
	if !ok {
		return nil, nil, usagef("%s: a %T cannot sign", privatePath, keys[0])
	}
	return private, keys[1], nil
}
