package soak

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencyGraphsStayApart: a go-sdk server using this package compiles no mcp-go
// package, an mcp-go server using the root package no go-sdk package, and package guard
// neither; none compiles OpenTelemetry, which only the otel module brings.
func TestDependencyGraphsStayApart(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("the go command is needed to list dependencies: ", err)
	}
	for _, c := range []struct{ pkg, never string }{
		{"github.com/mcpvalidate/mcpvalidate/gosdk", "github.com/mark3labs/mcp-go"},
		{"github.com/mcpvalidate/mcpvalidate", "github.com/modelcontextprotocol/go-sdk"},
		{"github.com/mcpvalidate/mcpvalidate/guard", "github.com/mark3labs/mcp-go"},
		{"github.com/mcpvalidate/mcpvalidate/guard", "github.com/modelcontextprotocol/go-sdk"},
		{"github.com/mcpvalidate/mcpvalidate/gosdk", "go.opentelemetry.io"},
		{"github.com/mcpvalidate/mcpvalidate", "go.opentelemetry.io"},
		{"github.com/mcpvalidate/mcpvalidate/guard", "go.opentelemetry.io"},
	} {
		out, err := exec.Command("go", "list", "-deps", c.pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", c.pkg, err, out)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("go list -deps %s listed only %v", c.pkg, deps)
		}
		for _, d := range deps {
			if strings.HasPrefix(d, c.never) {
				t.Errorf("%s depends on %s", c.pkg, d)
			}
		}
	}
}
