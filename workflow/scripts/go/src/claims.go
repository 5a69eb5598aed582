package main

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// decodeClaims parses one JSON object the way the verifier reads claims back
// (numbers kept as json.Number, so integers round-trip exactly).
func decodeClaims(data []byte) (map[string]any, error) {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	var claims map[string]any
	if err := decoder.Decode(&claims); err != nil {
		return nil, err
	}
	if claims == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	if decoder.More() {
		return nil, fmt.Errorf("trailing data after the JSON object")
	}
	return claims, nil
}

// readClaims reads a claims file (one JSON object); it returns the file's bytes too.
func readClaims(path string) (map[string]any, []byte, error) {
	data, err := readInput(path)
	if err != nil {
		return nil, nil, err
	}
	claims, err := decodeClaims(data)
	if err != nil {
		return nil, nil, usagef("%s: %v", path, err)
	}
	return claims, data, nil
}

// readRecords reads JSON Lines: one claims object per line, and each line's bytes.
func readRecords(path string) ([]map[string]any, [][]byte, error) {
	data, err := readInput(path)
	if err != nil {
		return nil, nil, err
	}
	var records []map[string]any
	var lines [][]byte
	number := 0
	for line := range bytes.Lines(data) {
		number++
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		claims, err := decodeClaims(line)
		if err != nil {
			return nil, nil, usagef("%s:%d: not a JSON object: %v", path, number, err)
		}
		records = append(records, claims)
		lines = append(lines, line)
	}
	if len(records) == 0 {
		return nil, nil, usagef("%s: no records", path)
	}
	return records, lines, nil
}
