package testsuite

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

const groupsJSON = `[
 {"file": "numbers.json", "description": "exact numbers", "schema": {"const": 9007199254740993},
  "extra": "ignored",
  "tests": [
   {"description": "as written", "data": 9007199254740993, "valid": true},
   {"description": "exponent", "data": 1e2, "valid": false},
   {"description": "beyond uint64", "data": 18446744073709551616, "valid": false}
  ]},
 {"description": "formats", "schema": true, "format_assertion": true,
  "tests": [{"description": "a string", "data": "x", "valid": true}]}
]`

func TestParseKeepsRawJSON(t *testing.T) {
	groups, err := Parse([]byte(groupsJSON))
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 2 {
		t.Fatalf("got %d groups, want 2", len(groups))
	}
	g := groups[0]
	if g.File != "numbers.json" || g.Description != "exact numbers" || g.FormatAssertion {
		t.Errorf("first group: %+v", g)
	}
	if string(g.Schema) != `{"const": 9007199254740993}` {
		t.Errorf("schema = %s", g.Schema)
	}
	var data []string
	for _, tc := range g.Tests {
		data = append(data, string(tc.Data))
	}
	if want := []string{"9007199254740993", "1e2", "18446744073709551616"}; !reflect.DeepEqual(data, want) {
		t.Errorf("data = %q, want %q", data, want)
	}
	if h := groups[1]; h.File != "" || !h.FormatAssertion || !h.Tests[0].Valid {
		t.Errorf("second group: %+v", h)
	}
}

func TestParseRejects(t *testing.T) {
	cases := map[string]string{
		"not an array":  `{"description": "x"}`,
		"no schema":     `[{"description": "x", "tests": []}]`,
		"no data":       `[{"description": "x", "schema": {}, "tests": [{"description": "y", "valid": true}]}]`,
		"trailing data": `[] []`,
		"truncated":     `[{"description": "x"`,
	}
	for name, text := range cases {
		if _, err := Parse([]byte(text)); err == nil {
			t.Errorf("%s: Parse accepted %s", name, text)
		}
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "groups.json")
	if err := os.WriteFile(path, []byte(groupsJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	groups, err := Load(path)
	if err != nil || len(groups) != 2 {
		t.Fatalf("Load: %d groups, %v", len(groups), err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("Load of a missing file succeeded")
	}
}

func TestRun(t *testing.T) {
	groups, err := Parse([]byte(groupsJSON))
	if err != nil {
		t.Fatal(err)
	}
	refused := errors.New("refused")
	// The engine refuses the schema true and rejects only the data 1e2.
	engine := func(g Group) (func(json.RawMessage) bool, error) {
		if string(g.Schema) == "true" {
			return nil, refused
		}
		return func(data json.RawMessage) bool { return string(data) != "1e2" }, nil
	}
	results, counts := Run(groups, engine)
	type outcome struct {
		group, test string
		got, passed bool
		err         error
	}
	var got []outcome
	for _, r := range results {
		got = append(got, outcome{r.Group, r.Test, r.Got, r.Passed(), r.Err})
	}
	want := []outcome{
		{"exact numbers", "as written", true, true, nil},
		{"exact numbers", "exponent", false, true, nil},
		{"exact numbers", "beyond uint64", true, false, nil},
		{"formats", "a string", false, false, refused},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("results:\n got %+v\nwant %+v", got, want)
	}
	if r := results[2]; r.File != "numbers.json" || r.GroupIndex != 0 || r.TestIndex != 2 || r.Want {
		t.Errorf("third result: %+v", r)
	}
	if want := (Counts{Groups: 2, GroupsPassed: 0, Tests: 4, TestsPassed: 2}); counts != want {
		t.Errorf("counts = %+v, want %+v", counts, want)
	}
}

// TestLoadCorpus reads every corpus file from this package's directory, as the tests of
// the root and conformance packages do from theirs.
func TestLoadCorpus(t *testing.T) {
	files, err := LoadCorpus()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(CorpusFiles) {
		t.Fatalf("%d files, want %d", len(files), len(CorpusFiles))
	}
	for i, f := range files {
		if f.Name != CorpusFiles[i] || len(f.Groups) == 0 || len(f.Groups[0].Tests) == 0 {
			t.Errorf("file %d: %q with %d groups", i, f.Name, len(f.Groups))
		}
	}
}
