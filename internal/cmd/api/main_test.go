package main

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"testing"
)

const source = `package p

import "io"

const Limit = 1 << 10

var Default = New()

type Options struct {
	Name  string
	limit int
	io.Reader
}

type Alias = Options

type Kind uint8

type Cache[K comparable] struct{ m map[K]int }

type Checker interface {
	Check([]byte) error
	secret()
}

func New() *Options { return nil }

func (o Options) Value() string    { return "" }
func (o *Options) Set(name string) {}
func (o *Options) hidden()         {}
func (k Kind) String() string      { return "" }

func unexported() {}
`

func TestFeatures(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", source, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := (&types.Config{Importer: importer.Default()}).Check("example.com/p", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"pkg p, const Limit untyped int = 1024",
		"pkg p, func New() *Options",
		"pkg p, method (*Options) Set(string)",
		"pkg p, method (Kind) String() string",
		"pkg p, method (Options) Read([]byte) (int, error)",
		"pkg p, method (Options) Value() string",
		"pkg p, type Alias = Options",
		"pkg p, type Cache[K comparable] struct",
		"pkg p, type Checker interface { Check([]byte) error, unexported methods }",
		"pkg p, type Kind uint8",
		"pkg p, type Options struct",
		"pkg p, type Options struct, Name string",
		"pkg p, type Options struct, embedded io.Reader",
		"pkg p, var Default *Options",
	}
	if got := features(pkg); !slices.Equal(got, want) {
		t.Errorf("features:\n%q\nwant\n%q", got, want)
	}
}
