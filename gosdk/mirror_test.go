package gosdk

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "write the files mirrored from the root package")

// mirrored are the root package's files that define what a guard is configured with and
// reports, framework aside: this package has the same names, from the same text.
var mirrored = []string{"options.go", "violation.go", "subset.go", "events.go"}

// TestMirrorsTheRootPackage: each mirrored file here is the root package's, but for its
// package clause and the line that says so; go test ./gosdk/ -run Mirrors -update writes them.
func TestMirrorsTheRootPackage(t *testing.T) {
	for _, name := range mirrored {
		root, err := os.ReadFile(filepath.Join("..", name))
		if err != nil {
			t.Fatal(err)
		}
		want := mirror(name, root)
		if *update {
			if err := os.WriteFile(name, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got, err := os.ReadFile(name); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from the root package's (%v): go test ./gosdk/ -run Mirrors -update", name, err)
		}
	}
}

func mirror(name string, root []byte) []byte {
	header := "// Code generated from the root package's " + name + " by TestMirrorsTheRootPackage; DO NOT EDIT.\n\n"
	return append([]byte(header), bytes.Replace(root, []byte("package mcpvalidate\n"), []byte("package gosdk\n"), 1)...)
}
