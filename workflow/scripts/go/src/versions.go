package main

import (
	"crypto/fips140"
	"encoding/json"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
)

// stdlibCrypto names the implementation of suites hash, primitive and keygen: the
// standard library's crypto packages, at the Go release that compiled the driver.
const stdlibCrypto = "go-crypto"

// moduleVersions are the driver's dependencies as compiled in (go.sum-checked).
func moduleVersions() map[string]string {
	found := map[string]string{}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, module := range info.Deps {
			found[module.Path] = strings.TrimPrefix(module.Version, "v")
		}
	}
	return found
}

func goVersion() string { return runtime.Version() }

// goVersionNumber is the Go release without its "go" prefix, as the CSV's versions read.
func goVersionNumber() string { return strings.TrimPrefix(runtime.Version(), "go") }

func versionsCommand(args []string) error {
	if _, _, err := parseFlags("versions", args, nil); err != nil {
		return err
	}
	libraries := libraryModules()
	libraries[stdlibCrypto] = goVersionNumber()
	libraries["net/http"] = goVersionNumber()
	info := map[string]any{
		"language":               "go",
		"runtime":                "go",
		"runtime_version":        goVersionNumber(),
		"implementation":         library.name(),
		"implementation_version": libraryVersion(),
		// fips140.Version() is "latest" unless built with GOFIPS140 set to a frozen module.
		"crypto_backend":  "Go standard library crypto (" + goVersion() + "; Go Cryptographic Module " + fips140.Version() + ")",
		"fips140_enabled": fips140.Enabled(),
		"goos_goarch":     runtime.GOOS + "/" + runtime.GOARCH,
		"libraries":       libraries,
	}
	encoder := json.NewEncoder(os.Stdout)
	return encoder.Encode(info)
}
