package gosdk

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// copiedFrom are the go-sdk functions gosdk_internals.go copies, each with the SHA-256 of
// its source as go/printer prints it without its doc comment, in each release supported:
// the same in go-sdk v1.7.0 and v1.8.0, but for internal/json's Unmarshal, which refuses
// text nested deeper than 1000 levels from v1.8.0.
var copiedFrom = []struct {
	file, name string
	sums       []string
}{
	{"mcp/server.go", "toolForErr", []string{"804201e4a1aa281d11b1b9a527a5853974c24d2d52d5850923f348048eee4316"}},
	{"mcp/server.go", "setSchema", []string{"37109f762b0e72736a94bf395eb987388b65e327548287175a28e8bdfeb11551"}},
	{"mcp/tool.go", "applySchema", []string{"0a6ba11b1efa8bb6ccf16900fa84944e176838e54ccbea763ba44b8a9231a2e5"}},
	{"internal/json/json.go", "Unmarshal", []string{
		"6b94b63d6612b8a3a10c5b11a4f12f3297dd24e466f21916dd7665fbdaafbd6a", // v1.7.0
		"1ea53bbe96a16731e862a15d86d7ca2543dc44e57303723e65b680404ef2ff99", // v1.8.0
	}},
	{"internal/json/json.go", "NewDecoder", []string{"30a3d28c61563ddea486e30264b4f2f661d38cf5b63bc84c2110f8c9a4d29ea4"}},
}

// changedOriginals returns the functions of copiedFrom whose source in the go-sdk module
// at dir is not the source copied: changed, or not found.
func changedOriginals(t *testing.T, dir string) []string {
	t.Helper()
	var changed []string
	for _, c := range copiedFrom {
		if sum := sourceSum(filepath.Join(dir, c.file), c.name); !slices.Contains(c.sums, sum) {
			changed = append(changed, c.file+": "+c.name+" "+sum)
		}
	}
	return changed
}

// sourceSum returns the SHA-256 of the top-level function name in the Go file at path,
// printed without its doc comment; "not found" when the file has no such function.
func sourceSum(path, name string) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return "not found: " + err.Error()
	}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == name && fn.Recv == nil {
			fn.Doc = nil
			var b bytes.Buffer
			if err := printer.Fprint(&b, fset, fn); err != nil {
				return "not printed: " + err.Error()
			}
			sum := sha256.Sum256(b.Bytes())
			return hex.EncodeToString(sum[:])
		}
	}
	return "not found"
}

// goSDKDir returns the directory of the go-sdk module compiled into the test, found from
// where one of its functions was compiled, and its version.
func goSDKDir(t *testing.T) (dir, version string) {
	t.Helper()
	file, _ := runtime.FuncForPC(reflect.ValueOf((*mcp.Server).AddTool).Pointer()).FileLine(0)
	file = filepath.FromSlash(file)
	if !filepath.IsAbs(file) { // built with -trimpath: path@version/mcp/server.go
		out, err := exec.Command("go", "env", "GOMODCACHE").Output()
		if err != nil {
			t.Fatal(err)
		}
		file = filepath.Join(strings.TrimSpace(string(out)), file)
	}
	dir = filepath.Dir(filepath.Dir(file))
	_, version, ok := strings.Cut(filepath.Base(dir), "@")
	if !ok {
		t.Fatalf("go-sdk compiled from %s, not from a module's directory", file)
	}
	return dir, version
}

// TestGoSDKInternalsFound: each go-sdk function that gosdk_internals.go copies is, in the
// release in the build, the source it was copied from. .ci/run runs it on the oldest and
// newest release tested and on the newest on the module proxy, with TestTypedHandlerParity,
// which holds the copies' answers to go-sdk's: a release that changes an original fails
// here until the copy is brought in step and its sum updated.
func TestGoSDKInternalsFound(t *testing.T) {
	dir, version := goSDKDir(t)
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
	for _, c := range changedOriginals(t, dir) {
		t.Errorf("go-sdk %s changed %s since it was copied into gosdk_internals.go", version, c)
	}
}

// TestGoSDKInternalsChanged: an original changed, or gone, is reported.
func TestGoSDKInternalsChanged(t *testing.T) {
	dir, _ := goSDKDir(t)
	changed := t.TempDir()
	edits := map[string][2]string{
		"mcp/server.go": {"var in In", "var in, _ In"},
		"mcp/tool.go":   {"func applySchema(", "func applySchema2("},
	}
	for _, c := range copiedFrom {
		src, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := edits[c.file]; ok {
			src = bytes.Replace(src, []byte(e[0]), []byte(e[1]), 1)
		}
		if err := os.MkdirAll(filepath.Join(changed, filepath.Dir(c.file)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(changed, c.file), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := changedOriginals(t, changed)
	if len(got) != 2 || !strings.HasPrefix(got[0], "mcp/server.go: toolForErr ") || got[1] != "mcp/tool.go: applySchema not found" {
		t.Errorf("reported %q, want toolForErr changed and applySchema not found", got)
	}
}
