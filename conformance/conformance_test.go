// Package conformance checks mcpvalidate against the JSON-Schema-Test-Suite, against cases
// taken from MCP servers, and against santhosh-tekuri/jsonschema as an oracle.
package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpvalidate/mcpvalidate"
	"github.com/mcpvalidate/mcpvalidate/guard"
	"github.com/mcpvalidate/mcpvalidate/guard/testsuite"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var (
	corpusOnce sync.Once
	corpus     []testsuite.CorpusFile
	corpusErr  error
)

// loadCorpus reads the group files once per test binary.
func loadCorpus(tb testing.TB) []testsuite.CorpusFile {
	tb.Helper()
	corpusOnce.Do(func() { corpus, corpusErr = testsuite.LoadCorpus() })
	if corpusErr != nil {
		tb.Fatal(corpusErr)
	}
	return corpus
}

// optional reports whether a group comes from the suite's optional/ directory, where a
// deviation is allowed if known-deviations.json lists it.
func optional(file string) bool { return strings.HasPrefix(file, "optional/") }

func ourOptions(g testsuite.Group) []guard.CompileOption {
	if g.FormatAssertion {
		return []guard.CompileOption{guard.WithFormatAssertion()}
	}
	return nil
}

// ourEngine is the engine under test, as testsuite.Run wants it.
func ourEngine(g testsuite.Group) (func(json.RawMessage) bool, error) {
	v, err := mcpvalidate.Compile(g.Schema, ourOptions(g)...)
	if err != nil {
		return nil, err
	}
	return func(data json.RawMessage) bool { return v.Validate(data) == nil }, nil
}

// refuseRemote is the oracle's loader: like mcpvalidate, it never fetches a document.
type refuseRemote struct{}

func (refuseRemote) Load(url string) (any, error) {
	return nil, fmt.Errorf("remote reference %s refused", url)
}

// compileOracle compiles a group's schema with santhosh-tekuri/jsonschema.
func compileOracle(g testsuite.Group) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(g.Schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseRemote{})
	c.DefaultDraft(jsonschema.Draft2020)
	if g.FormatAssertion {
		c.AssertFormat()
	}
	const url = "oracle:///schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// oracleValidate decodes data exactly (json.Number) and validates it with the oracle. It
// returns nil when the data is valid.
func oracleValidate(sch *jsonschema.Schema, data []byte) (*jsonschema.ValidationError, error) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	err = sch.Validate(inst)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	return ve, nil
}

// leafPointers lists the instance locations of the leaves of the oracle's error tree, as
// JSON Pointers.
func leafPointers(ve *jsonschema.ValidationError) []string {
	if len(ve.Causes) == 0 {
		return []string{pointer(ve.InstanceLocation)}
	}
	var out []string
	for _, c := range ve.Causes {
		out = append(out, leafPointers(c)...)
	}
	return out
}

func pointer(tokens []string) string {
	var b strings.Builder
	esc := strings.NewReplacer("~", "~0", "/", "~1")
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(esc.Replace(t))
	}
	return b.String()
}

// placed reports whether the oracle reports a failure where v stands: at v's path or
// beneath it. A missing or undeclared member, a name that propertyNames refuses, or an item
// that additionalItems refuses, is reported by the oracle at its parent.
func placed(v guard.Violation, leaves []string) bool {
	ptr := v.Path.Pointer()
	parent := ""
	if len(v.Path) > 0 {
		parent = v.Path[:len(v.Path)-1].Pointer()
	}
	member := v.Kind == guard.KindRequired || v.Kind == guard.KindDependentRequired || v.Kind == guard.KindAdditional ||
		v.Kind == guard.KindAdditionalItem || v.Keyword == "propertyNames"
	for _, l := range leaves {
		if l == ptr || strings.HasPrefix(l, ptr+"/") || member && len(v.Path) > 0 && l == parent {
			return true
		}
	}
	return false
}

// disagreement compares our violations with the oracle's error for the same data and says
// how they differ, or returns "" when they agree on the verdict and on where it fails.
func disagreement(vs []guard.Violation, ve *jsonschema.ValidationError) string {
	switch {
	case vs == nil && ve == nil:
		return ""
	case vs == nil:
		return "we accept, the oracle rejects: " + oneLine(ve.Error())
	case ve == nil:
		return "we reject, the oracle accepts: " + describe(vs)
	}
	leaves := leafPointers(ve)
	for _, v := range vs {
		if v.Kind == guard.KindTruncated || v.Kind == guard.KindSyntax {
			continue
		}
		if !placed(v, leaves) {
			return fmt.Sprintf("our %s violation at %q is not where the oracle fails (%q): ours %s; oracle %s",
				v.Kind, v.Path.Pointer(), leaves, describe(vs), oneLine(ve.Error()))
		}
	}
	return ""
}

func describe(vs []guard.Violation) string {
	return strings.Join(guard.Messages(vs, nil), "; ")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestSuiteVerdicts requires the suite's verdict on every test, except in optional/ groups,
// where each deviation must be listed in testdata/known-deviations.json and each listed
// deviation must still deviate.
func TestSuiteVerdicts(t *testing.T) {
	known := loadDeviations(t)
	found := map[deviationKey]bool{}
	for _, f := range loadCorpus(t) {
		t.Run(f.Name, func(t *testing.T) {
			results, c := testsuite.Run(f.Groups, ourEngine)
			deviations := 0
			for _, r := range results {
				k := deviationKey{r.File, r.Group, r.Test}
				_, listed := known[k]
				found[k] = true
				switch {
				case r.Passed() && listed:
					t.Errorf("%s / %s / %s: listed in known-deviations.json but gives the suite's verdict now: remove it from the list", r.File, r.Group, r.Test)
				case r.Passed():
				case !optional(r.File):
					t.Errorf("%s / %s / %s: %s", f.Name, r.Group, r.Test, failure(r))
				case !listed:
					t.Errorf("%s / %s / %s: optional test deviates and is not listed in known-deviations.json: %s", r.File, r.Group, r.Test, failure(r))
				default:
					deviations++
				}
			}
			t.Logf("%d/%d groups, %d/%d tests give the suite's verdict; %d known deviations",
				c.GroupsPassed, c.Groups, c.TestsPassed, c.Tests, deviations)
		})
	}
	for k := range known {
		if !found[k] {
			t.Errorf("known-deviations.json lists %s / %s / %s, which names no test", k.File, k.Group, k.Test)
		}
	}
}

func failure(r testsuite.Result) string {
	if r.Err != nil {
		return "the schema does not compile: " + r.Err.Error()
	}
	return fmt.Sprintf("got valid=%v, want valid=%v", r.Got, r.Want)
}

type deviationKey struct{ File, Group, Test string }

// loadDeviations reads testdata/known-deviations.json: optional suite tests on which we
// knowingly do not give the suite's verdict, each with its reason.
func loadDeviations(t *testing.T) map[deviationKey]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "known-deviations.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list []struct {
		File   string `json:"file"`
		Group  string `json:"group"`
		Test   string `json:"test"`
		Reason string `json:"reason"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&list); err != nil {
		t.Fatalf("known-deviations.json: %v", err)
	}
	known := map[deviationKey]string{}
	for _, d := range list {
		k := deviationKey{d.File, d.Group, d.Test}
		switch {
		case !optional(d.File):
			t.Errorf("known-deviations.json: %s / %s / %s: only optional/ tests may deviate", d.File, d.Group, d.Test)
		case strings.TrimSpace(d.Reason) == "":
			t.Errorf("known-deviations.json: %s / %s / %s: no reason given", d.File, d.Group, d.Test)
		case known[k] != "":
			t.Errorf("known-deviations.json: %s / %s / %s: listed twice", d.File, d.Group, d.Test)
		}
		known[k] = d.Reason
	}
	return known
}

// TestOracle requires, on every case of every file, that santhosh-tekuri/jsonschema compiles
// the schema when we do, gives our verdict, and fails where we say the arguments fail.
func TestOracle(t *testing.T) {
	for _, f := range loadCorpus(t) {
		t.Run(f.Name, func(t *testing.T) {
			var cases, agreed, refused int
			for _, g := range f.Groups {
				v, ourErr := mcpvalidate.Compile(g.Schema, ourOptions(g)...)
				sch, theirErr := compileOracle(g)
				if (ourErr == nil) != (theirErr == nil) {
					t.Errorf("%s / %s: we compile: %v, the oracle compiles: %v (ours: %v; oracle: %v)",
						g.File, g.Description, ourErr == nil, theirErr == nil, ourErr, theirErr)
					continue
				}
				if ourErr != nil {
					refused++ // both refuse; TestSuiteVerdicts judges whether that is right
					continue
				}
				for _, tc := range g.Tests {
					cases++
					ve, err := oracleValidate(sch, tc.Data)
					if err != nil {
						t.Errorf("%s / %s / %s: the oracle fails: %v", g.File, g.Description, tc.Description, err)
						continue
					}
					if d := disagreement(v.Validate(tc.Data), ve); d != "" {
						t.Errorf("%s / %s / %s: %s", g.File, g.Description, tc.Description, d)
						continue
					}
					agreed++
				}
			}
			t.Logf("%d/%d cases agree with the oracle; %d schemas refused by both", agreed, cases, refused)
		})
	}
}

// TestPlacedMatching pins down which oracle locations count as the place of a violation.
func TestPlacedMatching(t *testing.T) {
	at := func(kind guard.Kind, elems ...any) guard.Violation {
		var p guard.Path
		for _, e := range elems {
			switch e := e.(type) {
			case int:
				p = append(p, guard.PathElem{Index: e, IsIndex: true})
			case string:
				p = append(p, guard.PathElem{Name: e})
			}
		}
		return guard.Violation{Kind: kind, Path: p}
	}
	cases := []struct {
		name   string
		v      guard.Violation
		leaves []string
		want   bool
	}{
		{"same place", at(guard.KindType, "a", 0), []string{"/a/0"}, true},
		{"oracle deeper", at(guard.KindNoMatch, "a"), []string{"/a/0/b"}, true},
		{"root covers all", at(guard.KindNoMatch), []string{"/x"}, true},
		{"oracle shallower", at(guard.KindType, "a", "b"), []string{"/a"}, false},
		{"sibling with common prefix", at(guard.KindType, "ab"), []string{"/abc"}, false},
		{"elsewhere", at(guard.KindType, "a"), []string{"/b"}, false},
		{"missing member at its parent", at(guard.KindRequired, "a", "b"), []string{"/a"}, true},
		{"dependent member at its parent", at(guard.KindDependentRequired, "b"), []string{""}, true},
		{"additional member at its parent", at(guard.KindAdditional, "x"), []string{""}, true},
		{"refused name at its parent", guard.Violation{Kind: guard.KindOther, Keyword: "propertyNames", Path: at(0, "a", "b").Path}, []string{"/a"}, true},
		{"missing member, other parent", at(guard.KindRequired, "a", "b"), []string{"/c"}, false},
		{"escaped names", at(guard.KindType, "a/b", "c~d"), []string{"/a~1b/c~0d"}, true},
		{"one of many leaves", at(guard.KindEnum, 2), []string{"/0", "/1", "/2"}, true},
	}
	for _, c := range cases {
		if got := placed(c.v, c.leaves); got != c.want {
			t.Errorf("%s: placed(%s at %q, %q) = %v, want %v", c.name, c.v.Kind, c.v.Path.Pointer(), c.leaves, got, c.want)
		}
	}
	if !slices.Equal(leafPointers(&jsonschema.ValidationError{InstanceLocation: []string{"a/b", "~"}}), []string{"/a~1b/~0"}) {
		t.Error("leafPointers does not escape JSON Pointer tokens")
	}
}
