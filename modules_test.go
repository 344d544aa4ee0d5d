package mcpvalidate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdopterModuleGraphs: a fresh module that adopts mcpvalidate for one framework holds
// no module of the other in its module graph (and one that adopts the proxy, neither), so go mod tidy never downloads it nor
// raises the versions of what they share, and its framework at the oldest release
// supported, so that adopting moves no server past it. Full tier: it runs go mod tidy,
// which may reach the module proxy, for each module.
func TestAdopterModuleGraphs(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	t.Parallel()
	checkout, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, module, main, needs string
		never                     []string
	}{
		{"mcp-go", "github.com/mcpvalidate/mcpvalidate", `package main

import (
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpvalidate/mcpvalidate"
)

func main() { server.NewMCPServer("s", "1", server.WithToolHandlerMiddleware(mcpvalidate.Middleware())) }
`, "github.com/mark3labs/mcp-go@v0.56.0", []string{"github.com/modelcontextprotocol/go-sdk"}},
		{"go-sdk", "github.com/mcpvalidate/mcpvalidate/gosdk", `package main

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvalidate/mcpvalidate/gosdk"
)

func main() {
	tool := &mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object"}}
	mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil).AddTool(tool, gosdk.New().Handler(tool, nil))
}
`, "github.com/modelcontextprotocol/go-sdk@v1.7.0", []string{"github.com/mark3labs/mcp-go"}},
		{"proxy", "github.com/mcpvalidate/mcpvalidate/guard", `package main

import "github.com/mcpvalidate/mcpvalidate/guard/proxy"

func main() { _, _ = proxy.New(proxy.Options{}) }
`, "github.com/mcpvalidate/mcpvalidate/guard@v0.0.0", []string{"github.com/mark3labs/mcp-go", "github.com/modelcontextprotocol/go-sdk"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			dirOf := map[string]string{
				c.module: filepath.Join(checkout, strings.TrimPrefix(strings.TrimPrefix(c.module, "github.com/mcpvalidate/mcpvalidate"), "/")),
				"github.com/mcpvalidate/mcpvalidate/guard": filepath.Join(checkout, "guard"),
			}
			mod := "module example.com/adopter\n\ngo 1.25.5\n\nrequire " + c.module + " v0.0.0-00010101000000-000000000000\n"
			for m, d := range dirOf {
				mod += "\nreplace " + m + " => " + d + "\n"
			}
			for name, text := range map[string]string{"go.mod": mod, "main.go": c.main} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			goCmd(t, dir, "mod", "tidy")
			goCmd(t, dir, "build", "-o", os.DevNull, ".")
			graph := goCmd(t, dir, "mod", "graph")
			if !strings.Contains(graph, c.needs) {
				t.Fatalf("the graph lacks %s:\n%s", c.needs, graph)
			}
			for _, never := range append(c.never, "go.opentelemetry.io") {
				if strings.Contains(graph, never) {
					t.Errorf("the graph of a %s adopter holds %s:\n%s", c.name, never, graph)
				}
			}
		})
	}
}

// goCmd runs the go command in dir, outside any workspace, and returns its output.
func goCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestReadmeProgramsBuild: each complete program in the README (a Go block that is a
// package main) builds, in a fresh module that adopts this checkout as the README says.
func TestReadmeProgramsBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	checkout, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	var programs []string
	for _, block := range strings.Split(string(readme), "```go\n")[1:] {
		if code, _, _ := strings.Cut(block, "```"); strings.HasPrefix(code, "package main\n") {
			programs = append(programs, code)
		}
	}
	if len(programs) != 2 {
		t.Fatalf("the README has %d complete programs, want 2 (mcp-go and go-sdk)", len(programs))
	}
	const pseudo = " v0.0.0-00010101000000-000000000000"
	mod := "module example.com/adopter\n\ngo 1.25.5\n\nrequire (\n" +
		"\tgithub.com/mcpvalidate/mcpvalidate" + pseudo + "\n" +
		"\tgithub.com/mcpvalidate/mcpvalidate/gosdk" + pseudo + "\n)\n\n" +
		"replace github.com/mcpvalidate/mcpvalidate => " + checkout + "\n\n" +
		"replace github.com/mcpvalidate/mcpvalidate/gosdk => " + filepath.Join(checkout, "gosdk") + "\n\n" +
		"replace github.com/mcpvalidate/mcpvalidate/guard => " + filepath.Join(checkout, "guard") + "\n"
	for i, code := range programs {
		dir := t.TempDir()
		for name, text := range map[string]string{"go.mod": mod, "main.go": code} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		goCmd(t, dir, "mod", "tidy")
		if out := goCmd(t, dir, "vet", "."); out != "" {
			t.Errorf("program %d: go vet: %s", i, out)
		}
		goCmd(t, dir, "build", "-o", os.DevNull, ".")
	}
}
