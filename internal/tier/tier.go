// Package tier splits the tests in two: the quick tier that go test ./... runs, and the
// full tier (hostile input at megabyte scale, load through real servers, long fuzz
// corpora) that runs only where MCPVALIDATE_TESTS=full is set, as .ci/run sets it.
package tier

import (
	"os"
	"testing"
)

// Env is the environment variable that selects the full tier.
const Env = "MCPVALIDATE_TESTS"

// Enabled reports whether the full tier runs.
func Enabled() bool { return os.Getenv(Env) == "full" }

// Full skips t, a test of the full tier, unless that tier runs.
func Full(t testing.TB) {
	t.Helper()
	if !Enabled() {
		t.Skip("full tier: set " + Env + "=full to run")
	}
}
