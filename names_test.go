package mcpvalidate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// adapterPlumbing are the core's exported names that only adapters use: a user never
// meets them, so they have no counterpart here.
var adapterPlumbing = map[string]bool{
	"Call": true, "Schema": true, "Kept": true, "Unusable": true, "Verdict": true, "Guard": true, "CacheStats": true, "Unshare": true,
	"Join": true, // for packages that hand out options, such as the OpenTelemetry module
	// for a proxy, which meets calls of tools the server does not list (a framework answers
	// those itself), and the instruments that count them
	"UnknownTool": true, "UnknownToolName": true, "ShownName": true,
	// for a proxy, which compares the tool lists it learns
	"ToolHash": true, "SchemaPaths": true,
}

// TestEveryCoreNameHasItsCounterpart: every exported option, kind, outcome, type and
// function of the core that users meet has the same name here (and, through the files
// package gosdk mirrors from this one, there).
func TestEveryCoreNameHasItsCounterpart(t *testing.T) {
	core, here := exported(t, filepath.Join("internal", "core")), exported(t, ".")
	if len(core) < 50 {
		t.Fatalf("the core exports only %d names: %v", len(core), core)
	}
	for name := range core {
		if !adapterPlumbing[name] && !here[name] {
			t.Errorf("core.%s has no counterpart in this package", name)
		}
	}
}

// exported returns the package-level names a directory's non-test files export: types,
// functions, constants and variables (not methods).
func exported(t *testing.T, dir string) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names[s.Name.Name] = true
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return names
}
