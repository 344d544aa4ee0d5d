// Command api writes the exported API of Go packages as text, one line a name, sorted, in
// the form of Go's own api/go1.*.txt files, so that a change to it reads as a diff:
//
//	go run ./internal/cmd/api github.com/mcpvalidate/mcpvalidate/guard/proxy
//
//	pkg proxy, const DefaultMaxMessage = 67108864
//	pkg proxy, func New(Options) (*Proxy, error)
//	pkg proxy, method (*Proxy) Handler(string) (net/http.Handler, error)
//	pkg proxy, type Options struct, MaxMessage int64
//
// It reads the packages' export data, as the go command builds it (go list -export), and
// names no file of the machine it runs on. .ci/api runs it for every public package.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"log"
	"os"
	"os/exec"
	"slices"
	"strings"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("api: ")
	if len(os.Args) < 2 {
		log.Fatal("usage: api PACKAGE...")
	}
	pkgs := os.Args[1:]
	imp, err := exportImporter(pkgs)
	if err != nil {
		log.Fatal(err)
	}
	out := bufio.NewWriter(os.Stdout)
	for _, path := range pkgs {
		pkg, err := imp.Import(path)
		if err != nil {
			log.Fatalf("%s: %v", path, err)
		}
		for _, line := range features(pkg) {
			fmt.Fprintln(out, line)
		}
	}
	if err := out.Flush(); err != nil {
		log.Fatal(err)
	}
}

// exportImporter returns an importer of pkgs and everything they import, from the export
// data the go command writes for them.
func exportImporter(pkgs []string) (types.Importer, error) {
	cmd := exec.Command("go", append([]string{"list", "-deps", "-export", "-f", "{{.ImportPath}}\t{{.Export}}"}, pkgs...)...)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v", err)
	}
	files := map[string]string{}
	for line := range strings.Lines(string(b)) {
		path, file, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
		files[path] = file
	}
	return importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		if files[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(files[path])
	}), nil
}

// features lists the exported names of pkg, one line each, sorted.
func features(pkg *types.Package) []string {
	var lines []string
	add := func(format string, args ...any) {
		lines = append(lines, "pkg "+pkg.Name()+", "+fmt.Sprintf(format, args...))
	}
	qualify := func(p *types.Package) string {
		if p == pkg {
			return ""
		}
		return p.Path()
	}
	str := func(t types.Type) string { return types.TypeString(t, qualify) }
	sig := func(f *types.Func) string {
		s := f.Type().(*types.Signature)
		var b bytes.Buffer
		types.WriteSignature(&b, types.NewSignatureType(nil, nil, nil, unnamed(s.Params()), unnamed(s.Results()), s.Variadic()), qualify)
		return b.String()
	}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		if !token.IsExported(name) {
			continue
		}
		switch obj := scope.Lookup(name).(type) {
		case *types.Const:
			add("const %s %s = %s", name, str(obj.Type()), obj.Val().ExactString())
		case *types.Var:
			add("var %s %s", name, str(obj.Type()))
		case *types.Func:
			add("func %s%s", name, sig(obj))
		case *types.TypeName:
			typeFeatures(add, str, sig, obj)
		}
	}
	slices.Sort(lines)
	return lines
}

// unnamed returns t without its names, which are not part of the API.
func unnamed(t *types.Tuple) *types.Tuple {
	vars := make([]*types.Var, t.Len())
	for i := range vars {
		vars[i] = types.NewParam(token.NoPos, nil, "", t.At(i).Type())
	}
	return types.NewTuple(vars...)
}

// typeFeatures lists an exported type: what it is, its exported fields or interface
// methods, and its exported methods, promoted ones included.
func typeFeatures(add func(string, ...any), str func(types.Type) string, sig func(*types.Func) string, obj *types.TypeName) {
	name := obj.Name()
	if alias, ok := obj.Type().(*types.Alias); ok {
		add("type %s = %s", name, str(alias.Rhs()))
		return
	}
	named := obj.Type().(*types.Named)
	if tp := named.TypeParams(); tp.Len() > 0 {
		var params []string
		for i := range tp.Len() {
			params = append(params, tp.At(i).Obj().Name()+" "+str(tp.At(i).Constraint()))
		}
		name += "[" + strings.Join(params, ", ") + "]"
	}
	switch u := named.Underlying().(type) {
	case *types.Struct:
		add("type %s struct", name)
		for i := range u.NumFields() {
			f := u.Field(i)
			switch {
			case !f.Exported():
			case f.Embedded():
				add("type %s struct, embedded %s", name, str(f.Type()))
			default:
				add("type %s struct, %s %s", name, f.Name(), str(f.Type()))
			}
		}
	case *types.Interface:
		add("type %s interface { %s }", name, strings.Join(interfaceMethods(u, sig), ", "))
	default:
		add("type %s %s", name, str(u))
	}
	if types.IsInterface(named) {
		return
	}
	value := types.NewMethodSet(named)
	pointer := types.NewMethodSet(types.NewPointer(named))
	for i := range pointer.Len() {
		m := pointer.At(i).Obj().(*types.Func)
		if !m.Exported() {
			continue
		}
		recv := "*" + obj.Name()
		if value.Lookup(m.Pkg(), m.Name()) != nil {
			recv = obj.Name()
		}
		add("method (%s) %s%s", recv, m.Name(), sig(m))
	}
}

// interfaceMethods lists an interface's methods, unexported ones by name alone: they
// still decide which types satisfy it.
func interfaceMethods(u *types.Interface, sig func(*types.Func) string) []string {
	var methods []string
	for i := range u.NumMethods() {
		m := u.Method(i)
		if m.Exported() {
			methods = append(methods, m.Name()+sig(m))
		} else {
			methods = append(methods, "unexported methods")
		}
	}
	return slices.Compact(methods)
}
