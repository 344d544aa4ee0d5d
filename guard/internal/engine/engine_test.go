package engine_test

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// TestNotLinked: this test's program imports guard and not package fullengine, so the
// engine is not in it, and WithFullEngine says how to bring it in rather than validate
// with the subset.
func TestNotLinked(t *testing.T) {
	_, err := guard.Compile([]byte(`{"type":"object"}`), guard.WithFullEngine())
	var se *guard.SchemaError
	if !errors.As(err, &se) || !strings.Contains(se.Reason, "import github.com/mcpvalidate/mcpvalidate/guard/fullengine") {
		t.Fatalf("got %v, want a SchemaError naming the package to import", err)
	}
	if _, err := guard.Compile([]byte(`{"type":"object"}`)); err != nil {
		t.Fatal(err)
	}
}

// TestGuardLinksNoEngine: package guard and what it imports leave the engine out; only
// package fullengine brings it in.
func TestGuardLinksNoEngine(t *testing.T) {
	deps := func(pkg string) string {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		return string(out)
	}
	const engine = "github.com/santhosh-tekuri/jsonschema/v6"
	if d := deps("github.com/mcpvalidate/mcpvalidate/guard"); strings.Contains(d, engine) {
		t.Errorf("package guard depends on %s", engine)
	}
	if d := deps("github.com/mcpvalidate/mcpvalidate/guard/fullengine"); !strings.Contains(d, engine) {
		t.Errorf("package fullengine does not depend on %s", engine)
	}
}
