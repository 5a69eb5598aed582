package main

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Suite hash: seed 002's short strings (hex-digest, generate) and a length sweep (digest),
// with the standard library's one-shot digests (md5.Sum, sha1.Sum, sha256.Sum256,
// sha512.Sum512).

// digestInto appends a message's raw digest to dst; the array the one-shot function
// returns stays on the stack, so a call allocates nothing but what the caller does.
type digestInto func(dst, message []byte) []byte

var digests = map[string]digestInto{
	"MD5":     func(dst, m []byte) []byte { sum := md5.Sum(m); return append(dst, sum[:]...) },
	"SHA-1":   func(dst, m []byte) []byte { sum := sha1.Sum(m); return append(dst, sum[:]...) },
	"SHA-256": func(dst, m []byte) []byte { sum := sha256.Sum256(m); return append(dst, sum[:]...) },
	"SHA-512": func(dst, m []byte) []byte { sum := sha512.Sum512(m); return append(dst, sum[:]...) },
}

// hexDigest is DigestUtils.sha256Hex(String) in Go: the string's UTF-8 bytes (Go strings
// are UTF-8 already), their digest, lowercase hex.
func hexDigest(digest digestInto, message string) string {
	var buffer [64]byte
	return hex.EncodeToString(digest(buffer[:0], []byte(message)))
}

// messageBuilder builds one call's message from the cell's parts: the cached UUID as it
// is, a fresh uuid.NewString() per call (the same one for every fresh part of a call),
// time.Now().UnixMilli() in decimal.
type messageBuilder struct {
	parts  []string
	cached string
	fresh  bool // any fresh-uuid part
}

func newMessageBuilder(parts []string) *messageBuilder {
	b := &messageBuilder{parts: parts, cached: uuid.NewString()}
	for _, part := range parts {
		b.fresh = b.fresh || part == "fresh-uuid"
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

// expectedLength is what the contract says a built message's length must be.
func expectedLength(parts []string) int {
	total := 0
	for _, part := range parts {
		if part == "time-ms" {
			total += 13
		} else {
			total += 36
		}
	}
	return total
}

// prepareHash prepares and checks suite hash's cells.
func prepareHash(spec *benchSpec) (checkedCells, error) {
	var cells checkedCells
	for index, cell := range spec.Cells {
		label := cellLabel{
			implementation: stdlibCrypto, version: goVersionNumber(), suite: "hash", operation: cell.Operation,
			algorithm: cell.Algorithm, input: cell.Input, keyBits: *cell.KeyBits,
		}
		run, outputBytes, err := hashCell(cell, &label)
		cells.add(index, label, run, outputBytes, err)
	}
	return cells, nil
}

// hashCell builds a cell's batch after its checks (known answer, message length, and
// batch(1) consuming what the checked call returned); it sets label.inputBytes.
func hashCell(cell *cellSpec, label *cellLabel) (batchFunc, int, error) {
	digest := digests[cell.Algorithm]
	var run batchFunc
	var outputBytes int
	switch cell.Operation {
	case "digest":
		message := patternBytes(*cell.MessageBytes)
		label.inputBytes = len(message)
		known := []byte(cell.KnownAnswer["message"])
		if got := hex.EncodeToString(digest(nil, known)); got != cell.KnownAnswer["digest_hex"] {
			return nil, 0, fmt.Errorf("known answer: got %s, want %s", got, cell.KnownAnswer["digest_hex"])
		}
		outputBytes, run = len(digest(nil, message)), digestBatch(digest, message)
	case "hex-digest":
		if got := hexDigest(digest, cell.KnownAnswer["message"]); got != cell.KnownAnswer["digest_hex"] {
			return nil, 0, fmt.Errorf("known answer: got %s, want %s", got, cell.KnownAnswer["digest_hex"])
		}
		builder := newMessageBuilder(cell.Message)
		message := builder.build()
		if len(message) != expectedLength(cell.Message) {
			return nil, 0, fmt.Errorf("a built message has %d bytes, not %d", len(message), expectedLength(cell.Message))
		}
		label.inputBytes = len(message)
		outputBytes = len(hexDigest(digest, message))
		run = func(n int64) int64 {
			var folded int64
			for ; n > 0; n-- {
				folded += int64(len(hexDigest(digest, builder.build())))
			}
			return folded
		}
	case "generate":
		builder := newMessageBuilder(cell.Message)
		message := []byte(builder.build())
		if len(message) != expectedLength(cell.Message) {
			return nil, 0, fmt.Errorf("a built message has %d bytes, not %d", len(message), expectedLength(cell.Message))
		}
		label.inputBytes, outputBytes = len(message), len(message)
		run = func(n int64) int64 {
			var folded int64
			for ; n > 0; n-- {
				folded += int64(len(builder.build()))
			}
			return folded
		}
	}
	if got := run(1); got != int64(outputBytes) {
		return nil, 0, fmt.Errorf("one call consumed %d bytes, the checked call %d", got, outputBytes)
	}
	return run, outputBytes, nil
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
