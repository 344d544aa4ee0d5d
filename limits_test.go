package mcpvalidate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// limitPackages are the packages docs/limits.md covers, by the name its rows give them.
var limitPackages = map[string]string{
	"mcpvalidate": ".", "gosdk": "gosdk", "guard": "guard", "proxy": "guard/proxy",
	"mcpvalidateotel": "otel", "report": "cmd/mcpvalidate",
}

// limitNames are the limits whose names do not say so (max…, default…).
var limitNames = map[string]bool{"proxy.pageBurst": true, "proxy.pageRate": true, "guard.logPaths": true}

// TestLimitsTable: docs/limits.md states every limit once. Each constant a row names has
// the value the row gives, and every constant of the packages it covers whose name begins
// with max, Max, default or Default has a row.
func TestLimitsTable(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("docs", "limits.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{} // "pkg.name" -> value as written
	for line := range strings.Lines(string(doc)) {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		for name := range strings.SplitSeq(cells[1], ",") {
			rows[strings.Trim(strings.TrimSpace(name), "`")] = strings.TrimSpace(cells[2])
		}
	}
	consts := map[string]int64{}
	var limits []string
	for pkg, dir := range limitPackages {
		for name, v := range packageConsts(t, pkg, dir) {
			consts[pkg+"."+name] = v
			lower := strings.ToLower(name)
			if strings.HasPrefix(lower, "max") || strings.HasPrefix(lower, "default") || limitNames[pkg+"."+name] {
				limits = append(limits, pkg+"."+name)
			}
		}
	}
	for _, name := range limits {
		if _, ok := rows[name]; !ok {
			t.Errorf("%s has no row in docs/limits.md", name)
		}
	}
	for name, written := range rows {
		v, ok := consts[name]
		if !ok {
			t.Errorf("docs/limits.md names %s, which no package declares", name)
			continue
		}
		want, err := strconv.ParseInt(written, 10, 64)
		if d, derr := time.ParseDuration(written); err != nil && derr == nil {
			want, err = int64(d), nil
		}
		if err != nil || want != v {
			t.Errorf("docs/limits.md gives %s as %q; the code has %d", name, written, v)
		}
	}
}

// packageConsts returns the integer constants declared at the top of the package in dir,
// by name, as far as their expressions can be evaluated (literals, <<, *, +, -, other
// such constants, package guard's and time's).
func packageConsts(t *testing.T, pkg, dir string) map[string]int64 {
	t.Helper()
	exprs := map[string]ast.Expr{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, s := range g.Specs {
					vs := s.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if i < len(vs.Values) {
							exprs[n.Name] = vs.Values[i]
						}
					}
				}
			}
		}
	}
	out := map[string]int64{}
	var eval func(ast.Expr) (int64, bool)
	eval = func(x ast.Expr) (int64, bool) {
		switch x := x.(type) {
		case *ast.BasicLit:
			v, err := strconv.ParseInt(x.Value, 0, 64)
			return v, x.Kind == token.INT && err == nil
		case *ast.ParenExpr:
			return eval(x.X)
		case *ast.Ident:
			if e, ok := exprs[x.Name]; ok {
				return eval(e)
			}
		case *ast.SelectorExpr:
			switch id, _ := x.X.(*ast.Ident); {
			case id != nil && id.Name == "time" && x.Sel.Name == "Second":
				return int64(time.Second), true
			case id != nil && id.Name == "core" && pkg != "core":
				v, ok := packageConsts(t, "core", limitPackages["core"])[x.Sel.Name]
				return v, ok
			}
		case *ast.BinaryExpr:
			a, okA := eval(x.X)
			b, okB := eval(x.Y)
			if !okA || !okB {
				return 0, false
			}
			switch x.Op {
			case token.SHL:
				return a << b, true
			case token.MUL:
				return a * b, true
			case token.ADD:
				return a + b, true
			case token.SUB:
				return a - b, true
			}
		}
		return 0, false
	}
	for name, x := range exprs {
		if v, ok := eval(x); ok {
			out[name] = v
		}
	}
	return out
}
