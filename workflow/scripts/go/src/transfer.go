package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// Suite transfer: seed 000's loopback request-response with net/http. The server verifies
// the posted token (algorithm pinned) and answers with a signed receipt.

var transferOperations = []string{"request-response", "sign", "verify"}

const jwtMediaType = "application/jwt"

// receiptServer is the cell's HTTP/1.1 server on 127.0.0.1.
type receiptServer struct {
	keys     *jwsKeys
	server   *http.Server
	url      string
	listener net.Listener
}

func startReceiptServer(keys *jwsKeys) (*receiptServer, error) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &receiptServer{keys: keys, listener: listener, url: "http://" + listener.Addr().String() + "/"}
	s.server = &http.Server{Handler: http.HandlerFunc(s.receive), ReadHeaderTimeout: time.Minute}
	go s.server.Serve(listener)
	return s, nil
}

func (s *receiptServer) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.server.Shutdown(ctx)
}

func (s *receiptServer) receive(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST a token", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "cannot read the body", http.StatusBadRequest)
		return
	}
	began := time.Now()
	claims, err := s.keys.verifier.verify(string(body))
	verifyNS := time.Since(began)
	if err != nil {
		http.Error(w, "invalid token", http.StatusUnauthorized)
		return
	}
	fields := library.claimsMap(claims)
	records, _ := fields["records"].([]any)
	receiptClaims, err := library.claims(map[string]any{
		"dataset": fields["dataset"], "records": len(records),
		"received_bytes": len(body), "verify_ns": max(int64(verifyNS), 1),
	})
	if err != nil {
		http.Error(w, "cannot sign the receipt", http.StatusInternalServerError)
		return
	}
	receipt, err := s.keys.sign(receiptClaims)
	if err != nil {
		http.Error(w, "cannot sign the receipt", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", jwtMediaType)
	io.WriteString(w, receipt)
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

// transferTrial is one trial's three figures.
type transferTrial struct {
	whole, sign, verify int64
	tokenBytes          int
}

// trial signs the body, posts it, verifies the receipt and checks it; timed on the client
// from before signing to after the check.
func trial(client *http.Client, server *receiptServer, keys *jwsKeys, body any, records int) (transferTrial, error) {
	start := time.Now()
	token, err := keys.sign(body)
	signed := time.Since(start)
	if err != nil {
		return transferTrial{}, err
	}
	status, answer, err := post(client, server.url, token)
	if err != nil {
		return transferTrial{}, err
	}
	if status != http.StatusOK {
		return transferTrial{}, fmt.Errorf("the server answered %d", status)
	}
	verified, err := keys.verifier.verify(answer)
	if err != nil {
		return transferTrial{}, fmt.Errorf("the receipt does not verify: %v", err)
	}
	receipt := library.claimsMap(verified)
	if fmt.Sprint(receipt["records"]) != fmt.Sprint(records) || fmt.Sprint(receipt["received_bytes"]) != fmt.Sprint(len(token)) {
		return transferTrial{}, fmt.Errorf("the receipt says %v records, %v bytes", receipt["records"], receipt["received_bytes"])
	}
	whole := time.Since(start)
	verifyNS, err := receipt["verify_ns"].(json.Number).Int64()
	if err != nil {
		return transferTrial{}, fmt.Errorf("the receipt's verify_ns: %v", err)
	}
	return transferTrial{int64(whole), max(int64(signed), 1), verifyNS, len(token)}, nil
}

// serverCheck: the body's token with a flipped signature bit, and unsigned, get 401.
func serverCheck(client *http.Client, server *receiptServer, token string) error {
	header, payload, signature, _ := splitToken(token)
	raw, err := b64.DecodeString(signature)
	if err != nil {
		return err
	}
	raw[0] ^= 1
	forged := map[string]string{
		"a flipped signature bit": header + "." + payload + "." + b64.EncodeToString(raw),
		"alg none":                b64.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + payload + ".",
	}
	for what, token := range forged {
		status, _, err := post(client, server.url, token)
		if err != nil {
			return err
		}
		if status != http.StatusUnauthorized {
			return fmt.Errorf("the server answered %d to %s", status, what)
		}
	}
	return nil
}

func benchTransfer(spec *benchSpec, out *rowWriter) error {
	inputs := newJWTInputs()
	settings := spec.Transfer
	limit := budgetOf(spec.Timing).maxCell
	for _, cell := range spec.Cells {
		p, status, err := inputs.prepare(spec, cell)
		if err != nil {
			return err
		}
		label := p.label
		if status == "" {
			status, err = transferCell(p, settings, limit, out)
			if err != nil {
				return err
			}
		}
		if status != "" {
			for _, operation := range transferOperations {
				label.operation = operation
				if err := out.untimed(label, status); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// transferCell runs one cell's server, checks and trials; it returns a status when the
// cell is not timed ("failed"), after writing nothing.
func transferCell(p *preparedJWT, settings *transferConfig, limit time.Duration, out *rowWriter) (string, error) {
	server, err := startReceiptServer(p.keys)
	if err != nil {
		return "", err
	}
	defer server.stop()
	client := &http.Client{Timeout: seconds(*settings.RequestTimeoutSeconds)}
	defer client.CloseIdleConnections()
	if err := serverCheck(client, server, p.tokens[0]); err != nil {
		progress("%s: server check failed: %v", describe(p.label), err)
		return "failed", nil
	}
	body := p.input.native[0]
	records, _ := p.input.claims[0]["records"].([]any)
	var trials []transferTrial
	start := time.Now()
	timedOut := false
	for number := 1; number <= *settings.WarmupTrials+*settings.Trials; number++ {
		if time.Since(start) > limit {
			timedOut = true
			break
		}
		result, err := trial(client, server, p.keys, body, len(records))
		if err != nil {
			progress("%s: trial %d failed: %v", describe(p.label), number, err)
			return "failed", nil
		}
		if number > *settings.WarmupTrials {
			trials = append(trials, result)
			progress("%s: trial %d: %.2f ms", describe(p.label), len(trials), float64(result.whole)/1e6)
		}
	}
	status := "ok"
	if timedOut {
		status = "timeout"
	}
	label := p.label
	if len(trials) == 0 {
		spent := int64(time.Since(start))
		for _, operation := range transferOperations {
			label.operation = operation
			if err := out.write(label, sampleRow{0, 0, spent, p.meanTokenBytes(), "timeout"}); err != nil {
				return "", err
			}
		}
		return "", nil
	}
	for _, operation := range transferOperations {
		label.operation = operation
		for k, t := range trials {
			elapsed := map[string]int64{"request-response": t.whole, "sign": t.sign, "verify": t.verify}[operation]
			if err := out.write(label, sampleRow{k + 1, 1, elapsed, t.tokenBytes, status}); err != nil {
				return "", err
			}
		}
	}
	return "", nil
}
