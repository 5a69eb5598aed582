package main

import (
	"crypto"
	"crypto/x509"
	"fmt"
	"strconv"
	"strings"
)

// Suite keygen: seed 004's loop, one iteration per call, in this process; and sign and
// verify cells on the run's keys, as suite primitive's.

// keygenMessage is message_bytes of the ASCII digits 0123456789 repeated.
func keygenMessage(n int) []byte {
	return []byte(strings.Repeat("0123456789", n/10+1)[:n])
}

// prepareKeygen checks each PEM key pair once (a failure fails every cell of that key) and
// prepares every cell; no key pair is generated before a call asks for one.
func prepareKeygen(spec *benchSpec) (cells, error) {
	pairChecks := map[string]error{}
	var prepared cells
	for _, cs := range spec.Cells {
		scheme, message := signatureSchemes[cs.Algorithm], keygenMessage(cs.MessageBytes)
		private, public, err := loadPEMPair(cs.PrivateKey, cs.PublicKey)
		if err != nil {
			return nil, err
		}
		pairKey := strings.Join([]string{cs.Family, strconv.Itoa(cs.KeyBits), cs.PrivateKey, cs.PublicKey}, "\x00")
		if _, done := pairChecks[pairKey]; !done {
			pairChecks[pairKey] = scheme.checkPair(private, public, cs.KeyBits, keygenMessage(10))
		}
		if err := pairChecks[pairKey]; err != nil {
			prepared.add(cs.MessageBytes, nil, 0, fmt.Errorf("the PEM key pair: %v", err))
			continue
		}
		if cs.Operation == "sign" || cs.Operation == "verify" {
			run, outputBytes, err := signatureBatch(cs.Operation, scheme, private, public, message)
			prepared.add(cs.MessageBytes, run, outputBytes, err)
			continue
		}
		// output_bytes of the hello: the PEM pair's, a generated pair's alike.
		outputBytes, err := publicKeyDERLength(public)
		if cs.Operation != "keygen" {
			signature, signErr := scheme.sign(private, message)
			outputBytes, err = len(signature), signErr
		}
		entry := &cell{inputBytes: cs.MessageBytes, outputBytes: outputBytes}
		entry.run, entry.after = perIteration(cs, scheme, message)
		prepared = append(prepared, checked(entry, err))
	}
	return prepared, nil
}

// perIteration is a keygen or keygen+sign+verify cell: one call is one iteration with a new
// key pair; the cell's first pair is checked after its batch (untimed). Every batch answers
// its last iteration's output_bytes (for keygen the public key's DER length).
func perIteration(c *cellSpec, scheme signatureScheme, message []byte) (batchFunc, func(n, folded int64) (map[string]any, error)) {
	var last crypto.Signer
	var lastBytes int
	run := func(n int64) int64 {
		var folded int64
		for ; n > 0; n-- {
			key, err := scheme.generate(c.KeyBits)
			if err != nil {
				panic(err)
			}
			last, lastBytes = key, 1
			if c.Operation != "keygen" {
				signature, err := scheme.sign(key, message)
				if err != nil {
					panic(err)
				}
				if !scheme.verify(key.Public(), message, signature) {
					panic("a fresh signature does not verify")
				}
				lastBytes = len(signature)
			}
			folded += int64(lastBytes)
		}
		return folded
	}
	var checkErr error
	firstCall := true
	after := func(n, folded int64) (map[string]any, error) {
		if firstCall {
			firstCall = false
			if checkErr = scheme.checkPair(last, last.Public(), c.KeyBits, keygenMessage(10)); checkErr != nil {
				checkErr = fmt.Errorf("the first iteration's key pair: %v", checkErr)
			}
		}
		if checkErr != nil {
			return nil, checkErr
		}
		if c.Operation == "keygen" {
			var err error
			if lastBytes, err = publicKeyDERLength(last.Public()); err != nil {
				return nil, err
			}
		}
		return map[string]any{"output_bytes": lastBytes}, nil
	}
	return run, after
}

func publicKeyDERLength(public crypto.PublicKey) (int, error) {
	der, err := x509.MarshalPKIXPublicKey(public)
	return len(der), err
}
