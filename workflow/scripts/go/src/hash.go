package main

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Suite hash: seed 002's short strings (hex-digest, generate) and a length sweep (digest),
// with the standard library's one-shot digests.

// digestInto appends a message's raw digest to dst; the array the one-shot function
// returns stays on the stack, so a call allocates nothing but what the caller does.
type digestInto func(dst, message []byte) []byte

var digests = map[string]digestInto{
	"MD5":     func(dst, m []byte) []byte { sum := md5.Sum(m); return append(dst, sum[:]...) },
	"SHA-1":   func(dst, m []byte) []byte { sum := sha1.Sum(m); return append(dst, sum[:]...) },
	"SHA-256": func(dst, m []byte) []byte { sum := sha256.Sum256(m); return append(dst, sum[:]...) },
	"SHA-512": func(dst, m []byte) []byte { sum := sha512.Sum512(m); return append(dst, sum[:]...) },
}

// hexDigest is DigestUtils.sha256Hex(String) in Go: the string's bytes' digest, lowercase hex.
func hexDigest(digest digestInto, message string) string {
	var buffer [64]byte
	return hex.EncodeToString(digest(buffer[:0], []byte(message)))
}

// messageBuilder builds one call's message from the cell's parts: the cached UUID, a fresh
// uuid.NewString() per call (one for every fresh part of a call), time.Now().UnixMilli().
type messageBuilder struct {
	parts  []string
	cached string
	fresh  bool // any fresh-uuid part
	length int  // the contract's length of a built message
}

var partLengths = map[string]int{"cached-uuid": 36, "fresh-uuid": 36, "time-ms": 13}

func newMessageBuilder(parts []string) *messageBuilder {
	b := &messageBuilder{parts: parts, cached: uuid.NewString(), fresh: slices.Contains(parts, "fresh-uuid")}
	for _, part := range parts {
		b.length += partLengths[part]
	}
	return b
}

func (b *messageBuilder) build() string {
	if len(b.parts) == 1 && b.parts[0] == "cached-uuid" {
		return b.cached
	}
	fresh := ""
	if b.fresh {
		fresh = uuid.NewString()
	}
	var message strings.Builder
	message.Grow(96)
	for _, part := range b.parts {
		switch part {
		case "cached-uuid":
			message.WriteString(b.cached)
		case "fresh-uuid":
			message.WriteString(fresh)
		default:
			var digits [20]byte
			message.Write(strconv.AppendInt(digits[:0], time.Now().UnixMilli(), 10))
		}
	}
	return message.String()
}

// prepareHash prepares and checks suite hash's cells.
func prepareHash(spec *benchSpec) (cells, error) {
	var prepared cells
	for _, cs := range spec.Cells {
		run, inputBytes, outputBytes, err := hashCell(cs)
		if err == nil {
			err = oneCall(run, outputBytes)
		}
		prepared.add(inputBytes, run, outputBytes, err)
	}
	return prepared, nil
}

func hashCell(cs *cellSpec) (run batchFunc, inputBytes, outputBytes int, err error) {
	digest := digests[cs.Algorithm]
	if known := cs.KnownAnswer; cs.Operation != "generate" {
		if got := hex.EncodeToString(digest(nil, []byte(known["message"]))); got != known["digest_hex"] {
			return nil, 0, 0, fmt.Errorf("known answer: got %s, want %s", got, known["digest_hex"])
		}
	}
	if cs.Operation == "digest" {
		message := patternBytes(cs.MessageBytes)
		return digestBatch(digest, message), len(message), len(digest(nil, message)), nil
	}
	builder := newMessageBuilder(cs.Message)
	message := builder.build()
	if len(message) != builder.length {
		return nil, 0, 0, fmt.Errorf("a built message has %d bytes, not %d", len(message), builder.length)
	}
	if cs.Operation == "generate" {
		return func(n int64) int64 {
			var folded int64
			for ; n > 0; n-- {
				folded += int64(len(builder.build()))
			}
			return folded
		}, len(message), len(message), nil
	}
	return func(n int64) int64 {
		var folded int64
		for ; n > 0; n-- {
			folded += int64(len(hexDigest(digest, builder.build())))
		}
		return folded
	}, len(message), len(hexDigest(digest, message)), nil
}

// digestBatch hashes the same message n times into a reused array.
func digestBatch(digest digestInto, message []byte) batchFunc {
	return func(n int64) int64 {
		var buffer [64]byte
		var folded int64
		for ; n > 0; n-- {
			folded += int64(len(digest(buffer[:0], message)))
		}
		return folded
	}
}

// patternBytes is the contract's message of n bytes: byte i = i mod 256.
func patternBytes(n int) []byte {
	message := make([]byte, n)
	for i := range message {
		message[i] = byte(i)
	}
	return message
}
