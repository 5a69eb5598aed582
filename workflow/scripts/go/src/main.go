// Command jwtbench-go is jwtbench's Go driver (workflow/scripts/README.md; README.md).
package main

import (
	"errors"
	"fmt"
	"os"
)

// Exit statuses of the contract.
const (
	exitOK          = 0
	exitInvalid     = 1
	exitUsage       = 2
	exitUnsupported = 3
	exitFailure     = 4 // the library failed on a token (not its verdict), e.g. a panic
)

// usageError is a usage or input problem (exit 2); its text names the flag or file.
type usageError struct{ text string }

func (e *usageError) Error() string { return e.text }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// errUnsupported wraps what the library says when it lacks an algorithm (exit 3).
var errUnsupported = errors.New("unsupported")

// errInvalidToken marks a token that does not verify (exit 1).
var errInvalidToken = errors.New("invalid token")

// libraryFailure is an error of the library's that is not its verdict on a token (exit 4).
type libraryFailure struct{ reason string }

func (e *libraryFailure) Error() string { return e.reason }

const usage = `usage: jwtbench-go versions
       jwtbench-go sign --alg ALG --key FILE --payload FILE
       jwtbench-go verify --alg ALG --key FILE --token FILE [--signature-only]
       jwtbench-go verify-batch --cases FILE
       jwtbench-go sign-batch --cases FILE
       jwtbench-go serve --spec FILE
       jwtbench-go coldstart --hmac FILE --rsa FILE --payload FILE`

var commands = map[string]func(args []string) error{
	"versions":     versionsCommand,
	"sign":         signCommand,
	"verify":       verifyCommand,
	"verify-batch": verifyBatchCommand,
	"sign-batch":   signBatchCommand,
	"serve":        serveCommand,
	"coldstart":    coldstartCommand,
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, usage)
		return exitUsage
	}
	command, known := commands[args[0]]
	if !known {
		fmt.Fprintf(os.Stderr, "error: unknown command %q\n%s\n", args[0], usage)
		return exitUsage
	}
	err := selectLibrary()
	if err == nil {
		err = command(args[1:])
	}
	var usageErr *usageError
	var failure *libraryFailure
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &usageErr):
		fmt.Fprintln(os.Stderr, "error:", err)
		return exitUsage
	case errors.Is(err, errUnsupported):
		fmt.Fprintln(os.Stderr, "unsupported:", err)
		return exitUnsupported
	case errors.Is(err, errInvalidToken):
		fmt.Fprintln(os.Stderr, err) // "invalid token: ..."
		return exitInvalid
	case errors.As(err, &failure):
		fmt.Fprintln(os.Stderr, "error:", err)
		return exitFailure
	default:
		fmt.Fprintln(os.Stderr, "error:", err)
		return exitInvalid
	}
}
