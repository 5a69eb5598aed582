package main

import (
	"bytes"
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
)

// preparePrimitive prepares and checks suite primitive's cells (seed 003), each cell's
// batch a loop with its call inline.
func preparePrimitive(spec *benchSpec) (cells, error) {
	var prepared cells
	for _, cs := range spec.Cells {
		message := patternBytes(cs.MessageBytes)
		if cs.InputFile != "" {
			var err error
			if message, err = readInput(cs.InputFile); err != nil {
				return nil, err
			}
		}
		run, outputBytes, err := primitiveCell(cs, message)
		if usageErr := (*usageError)(nil); errors.As(err, &usageErr) {
			return nil, err
		}
		// (An ECDSA signature's DER length varies by a byte or two from call to call.)
		if err == nil && !(signatureSchemes[cs.Algorithm].family == "ECDSA" && cs.Operation == "sign") {
			err = oneCall(run, outputBytes)
		}
		prepared.add(len(message), run, outputBytes, err)
	}
	return prepared, nil
}

func knownHex(cell *cellSpec, field string) []byte {
	value, _ := hex.DecodeString(cell.KnownAnswer[field])
	return value
}

// knownAnswer compares the call's output on the known answer's inputs with its output_hex.
func knownAnswer(cell *cellSpec, output []byte) error {
	if got := hex.EncodeToString(output); got != cell.KnownAnswer["output_hex"] {
		return fmt.Errorf("known answer: got %s", got)
	}
	return nil
}

// primitiveCell checks a cell and returns its batch and the size of one call's output.
func primitiveCell(cell *cellSpec, message []byte) (batchFunc, int, error) {
	switch cell.Operation {
	case "digest":
		digest := digests[cell.Algorithm]
		if err := knownAnswer(cell, digest(nil, knownHex(cell, "message_hex"))); err != nil {
			return nil, 0, err
		}
		return digestBatch(digest, message), len(digest(nil, message)), nil
	case "mac":
		return macCell(cell, message)
	case "encrypt":
		return encryptCell(cell, message)
	}
	return signatureCell(cell, signatureSchemes[cell.Algorithm], message)
}

// macCell: the keyed HMAC object is made once; a call resets it to the keyed state,
// writes the message and appends the tag to a reused buffer.
func macCell(cell *cellSpec, message []byte) (batchFunc, int, error) {
	secret, err := readInput(cell.PrivateKey)
	if err != nil {
		return nil, 0, err
	}
	known := hmac.New(sha256.New, knownHex(cell, "key_hex"))
	known.Write(knownHex(cell, "message_hex"))
	if err := knownAnswer(cell, known.Sum(nil)); err != nil {
		return nil, 0, err
	}
	mac := hmac.New(sha256.New, secret)
	return func(n int64) int64 {
		var tag [sha256.Size]byte
		var folded int64
		for ; n > 0; n-- {
			mac.Reset()
			mac.Write(message)
			folded += int64(len(mac.Sum(tag[:0])))
		}
		return folded
	}, sha256.Size, nil
}

// encryptCell: AES-256-GCM made once (aes.NewCipher + cipher.NewGCM); a call seals the
// message under the next big-endian counter nonce into a reused buffer.
func encryptCell(cell *cellSpec, message []byte) (batchFunc, int, error) {
	secret, err := readInput(cell.PrivateKey)
	if err != nil {
		return nil, 0, err
	}
	knownAEAD, err := newGCM(knownHex(cell, "key_hex"))
	if err != nil {
		return nil, 0, err
	}
	if err := knownAnswer(cell, knownAEAD.Seal(nil, knownHex(cell, "nonce_hex"), knownHex(cell, "message_hex"), nil)); err != nil {
		return nil, 0, err
	}
	aead, err := newGCM(secret)
	if err != nil {
		return nil, 0, err
	}
	var nonce [12]byte
	var counter uint64
	output := make([]byte, 0, len(message)+aead.Overhead())
	seal := func() []byte {
		counter++
		binary.BigEndian.PutUint64(nonce[4:], counter)
		return aead.Seal(output[:0], nonce[:], message, nil)
	}
	// One output of the timed path decrypts back to the message.
	opened, err := aead.Open(nil, nonce[:], bytes.Clone(seal()), nil)
	if err != nil || !bytes.Equal(opened, message) {
		return nil, 0, fmt.Errorf("an output does not decrypt back to the message (%v)", err)
	}
	return func(n int64) int64 {
		var folded int64
		for ; n > 0; n-- {
			folded += int64(len(seal()))
		}
		return folded
	}, len(message) + aead.Overhead(), nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("AES key: %v", err)
	}
	return cipher.NewGCM(block)
}

// signatureCell: the PEM keys parsed and checked once; verify checks a signature made once.
func signatureCell(cell *cellSpec, scheme signatureScheme, message []byte) (batchFunc, int, error) {
	private, public, err := loadPEMPair(cell.PrivateKey, cell.PublicKey)
	if err != nil {
		return nil, 0, err
	}
	if err := scheme.checkPair(private, public, cell.KeyBits, message); err != nil {
		return nil, 0, err
	}
	return signatureBatch(cell.Operation, scheme, private, public, message)
}

func signatureBatch(operation string, scheme signatureScheme, private crypto.Signer, public crypto.PublicKey,
	message []byte) (batchFunc, int, error) {
	signature, err := scheme.sign(private, message)
	if err != nil {
		return nil, 0, err
	}
	if operation == "sign" {
		return func(n int64) int64 {
			var folded int64
			for ; n > 0; n-- {
				made, err := scheme.sign(private, message)
				if err != nil {
					panic(fmt.Sprintf("sign failed while timed: %v", err))
				}
				folded += int64(len(made))
			}
			return folded
		}, len(signature), nil
	}
	return func(n int64) int64 {
		var folded int64
		for ; n > 0; n-- {
			if !scheme.verify(public, message, signature) {
				panic("a valid signature failed to verify while timed")
			}
			folded += int64(len(signature))
		}
		return folded
	}, len(signature), nil
}
