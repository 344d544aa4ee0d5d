// Package testsuite loads test files in the group format of the JSON-Schema-Test-Suite and runs
// them against a validator.
//
// A file is a JSON array of groups:
//
//	[{"file": "optional/format/uuid.json", "description": "...", "schema": {...},
//	  "format_assertion": true,
//	  "tests": [{"description": "...", "data": ..., "valid": false}]}]
//
// "file" and "format_assertion" may be absent; other fields are ignored. Schemas and data
// stay raw JSON, so numbers such as 1e2 or 18446744073709551616 reach the validator as
// written.
package testsuite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// A Group is one schema with the tests that run against it.
type Group struct {
	// File names the suite file the group comes from, such as "optional/format/uuid.json";
	// empty when the group file does not say.
	File string `json:"file"`
	// Description says what the group tests.
	Description string `json:"description"`
	// Schema is the schema, as written in the file.
	Schema json.RawMessage `json:"schema"`
	// FormatAssertion says the tests expect "format" to be an assertion.
	FormatAssertion bool `json:"format_assertion"`
	// Tests run against Schema, in file order.
	Tests []Test `json:"tests"`
}

// A Test is one instance and the verdict the suite expects for it.
type Test struct {
	// Description says what the test checks.
	Description string `json:"description"`
	// Data is the instance, as written in the file.
	Data json.RawMessage `json:"data"`
	// Valid is the expected verdict.
	Valid bool `json:"valid"`
}

// Parse decodes a group file.
func Parse(b []byte) ([]Group, error) {
	var groups []Group
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&groups); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("unexpected data after the array of groups")
	}
	for i, g := range groups {
		if len(g.Schema) == 0 {
			return nil, fmt.Errorf("group %d (%q) has no schema", i, g.Description)
		}
		for j, t := range g.Tests {
			if len(t.Data) == 0 {
				return nil, fmt.Errorf("group %d (%q), test %d (%q) has no data", i, g.Description, j, t.Description)
			}
		}
	}
	return groups, nil
}

// Load reads and decodes the group file at path.
func Load(path string) ([]Group, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	groups, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return groups, nil
}

// An Engine compiles a group's schema, honouring g.FormatAssertion, and returns the function
// that reports whether an instance is valid against it.
type Engine func(g Group) (valid func(data json.RawMessage) bool, err error)

// A Result is the outcome of one test.
type Result struct {
	File, Group, Test string // the group's file, the group's and the test's descriptions
	GroupIndex        int    // position of the group in the file
	TestIndex         int    // position of the test in its group
	Want              bool   // the verdict the suite expects
	Got               bool   // the engine's verdict; false when the schema did not compile
	Err               error  // why the schema did not compile, if it did not
}

// Passed reports whether the engine compiled the schema and gave the expected verdict.
func (r Result) Passed() bool { return r.Err == nil && r.Got == r.Want }

// Counts sums up a run. A group passes when every one of its tests passes.
type Counts struct {
	Groups, GroupsPassed int
	Tests, TestsPassed   int
}

// Run compiles every group with e and runs its tests, in file order.
func Run(groups []Group, e Engine) ([]Result, Counts) {
	var results []Result
	var c Counts
	for gi, g := range groups {
		valid, err := e(g)
		groupOK := true
		for ti, t := range g.Tests {
			r := Result{File: g.File, Group: g.Description, Test: t.Description, GroupIndex: gi, TestIndex: ti, Want: t.Valid, Err: err}
			if err == nil {
				r.Got = valid(t.Data)
			}
			c.Tests++
			if r.Passed() {
				c.TestsPassed++
			} else {
				groupOK = false
			}
			results = append(results, r)
		}
		c.Groups++
		if groupOK {
			c.GroupsPassed++
		}
	}
	return results, c
}

// CorpusFiles are the group files of the project's conformance corpus, in
// conformance/testdata. Only the first comes from the JSON-Schema-Test-Suite and has
// optional/ groups; the others hold schemas of MCP tools, some with a draft-07 $schema.
var CorpusFiles = []string{"jsts-2020-12-public.json", "jsts-added-keywords.json", "mcp-cases-public.json", "real-servers-public.json"}

// A CorpusFile is one group file of the corpus.
type CorpusFile struct {
	Name   string // as CorpusFiles lists it
	Groups []Group
}

// LoadCorpus reads the corpus, found from this package's place in the module, so that the
// tests of every package read the same files wherever they run from.
func LoadCorpus() ([]CorpusFile, error) {
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		return nil, fmt.Errorf("suite: the corpus cannot be found: no source path")
	}
	dir := filepath.Join(filepath.Dir(here), "..", "..", "conformance", "testdata")
	var out []CorpusFile
	for _, name := range CorpusFiles {
		groups, err := Load(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		out = append(out, CorpusFile{Name: name, Groups: groups})
	}
	return out, nil
}
