module jwtbench/go-driver

go 1.26

// A fragment of envs/go/go.mod (tests/test_dependency_licences.py).
require (
	github.com/golang-jwt/jwt/v5 v5.3.1
	github.com/example/dual v1.0.0
)

require (
	github.com/goccy/go-json v0.11.2 // indirect
	golang.org/x/sys v0.47.0 // indirect
)

require github.com/example/unrecognised v0.1.0 // indirect
