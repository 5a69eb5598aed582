package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// Suite transfer: seed 000's loopback request-response with net/http.

const jwtMediaType = "application/jwt"

// startReceiptServer starts a cell's server on 127.0.0.1: it verifies the posted token
// (algorithm pinned) and answers a signed receipt.
func startReceiptServer(keys *jwsKeys) (*http.Server, string, error) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	server := &http.Server{Handler: receiver(keys), ReadHeaderTimeout: time.Minute}
	go server.Serve(listener)
	return server, "http://" + listener.Addr().String() + "/", nil
}

func receiver(keys *jwsKeys) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "cannot read the body", http.StatusBadRequest)
			return
		}
		began := time.Now()
		claims, err := keys.verifier.verify(string(body))
		verifyNS := time.Since(began)
		if err != nil {
			http.Error(w, "invalid token", http.StatusUnauthorized)
			return
		}
		fields := library.claimsMap(claims)
		records, _ := fields["records"].([]any)
		receipt, err := library.claims(map[string]any{
			"dataset": fields["dataset"], "records": len(records),
			"received_bytes": len(body), "verify_ns": max(int64(verifyNS), 1),
		})
		var token string
		if err == nil {
			token, err = keys.signer.sign(receipt)
		}
		if err != nil {
			http.Error(w, "cannot sign the receipt", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", jwtMediaType)
		io.WriteString(w, token)
	}
}

// post sends a token; it returns the status and the response body.
func post(client *http.Client, url, token string) (int, string, error) {
	response, err := client.Post(url, jwtMediaType, strings.NewReader(token))
	if err != nil {
		return 0, "", err
	}
	defer response.Body.Close()
	body, err := io.ReadAll(response.Body)
	return response.StatusCode, string(body), err
}

// trial is one call of a transfer cell: it returns the token's size and the client's sign
// and the server's verify in ns.
func trial(client *http.Client, url string, keys *jwsKeys, body any, records int) (int, int64, int64, error) {
	start := time.Now()
	token, err := keys.signer.sign(body)
	signed := max(int64(time.Since(start)), 1)
	if err != nil {
		return 0, 0, 0, err
	}
	status, answer, err := post(client, url, token)
	if err != nil {
		return 0, 0, 0, err
	}
	if status != http.StatusOK {
		return 0, 0, 0, fmt.Errorf("the server answered %d", status)
	}
	verified, err := keys.verifier.verify(answer)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("the receipt does not verify: %v", err)
	}
	receipt := library.claimsMap(verified)
	if fmt.Sprint(receipt["records"]) != fmt.Sprint(records) || fmt.Sprint(receipt["received_bytes"]) != fmt.Sprint(len(token)) {
		return 0, 0, 0, fmt.Errorf("the receipt says %v records, %v bytes", receipt["records"], receipt["received_bytes"])
	}
	verifyNS, err := receipt["verify_ns"].(json.Number).Int64()
	if err != nil {
		return 0, 0, 0, fmt.Errorf("the receipt's verify_ns: %v", err)
	}
	return len(token), signed, verifyNS, nil
}

// serverCheck: the body's token with a flipped signature bit, and unsigned, get 401.
func serverCheck(client *http.Client, url, token string) error {
	forged, err := forgeries(token)
	if err != nil {
		return err
	}
	for what, forgery := range forged {
		status, _, err := post(client, url, forgery)
		if err != nil {
			return err
		}
		if status != http.StatusUnauthorized {
			return fmt.Errorf("the server answered %d to %s", status, what)
		}
	}
	return nil
}

// prepareTransfer prepares each cell as suite jwt's, starts its server (until the worker
// exits) and checks it.
func prepareTransfer(spec *benchSpec) (cells, error) {
	inputs := newJWTInputs()
	if spec.Transfer == nil {
		return nil, usagef("a transfer spec without its transfer object")
	}
	timeout := time.Duration(spec.Transfer.RequestTimeoutSeconds * float64(time.Second))
	var prepared cells
	for _, c := range spec.Cells {
		p, entry, err := inputs.prepare(c)
		if err != nil {
			return nil, err
		}
		prepared = append(prepared, entry)
		if entry.status != "" {
			continue
		}
		server, url, err := startReceiptServer(p.keys)
		if err != nil {
			return nil, err
		}
		client := &http.Client{Timeout: timeout}
		if err := serverCheck(client, url, p.tokens[0]); err != nil {
			server.Close()
			prepared[len(prepared)-1] = checked(entry, fmt.Errorf("server check: %v", err))
			continue
		}
		body := p.input.native[0]
		records, _ := p.input.claims[0]["records"].([]any)
		var tokenBytes int
		var sign, verify int64
		entry.run = func(n int64) int64 {
			var folded int64
			for ; n > 0; n-- {
				var err error
				tokenBytes, sign, verify, err = trial(client, url, p.keys, body, len(records))
				if err != nil {
					panic(err)
				}
				folded += int64(tokenBytes)
			}
			return folded
		}
		entry.after = func(n, folded int64) (map[string]any, error) {
			if n != 1 {
				return nil, nil
			}
			return map[string]any{"output_bytes": tokenBytes, "parts": map[string]int64{"sign": sign, "verify": verify}}, nil
		}
	}
	return prepared, nil
}
