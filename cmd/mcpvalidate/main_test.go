package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const weather = `{"type":"object","properties":{"location":{"type":"string"},"days":{"type":"integer"},
"units":{"type":"string","enum":["c","f"]}},"required":["location"],"additionalProperties":false}`

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCommands(t *testing.T) {
	schema := write(t, "s.json", weather)
	bad := write(t, "bad.json", `{"type":"strnig"}`)
	loose := write(t, "loose.json", `{"type":"object","properties":{"customer_email":{"type":"string"}}}`)
	pull := write(t, "pull.json", `{"type":"object","required":["owner","repo","pullNumber"],"properties":{
		"owner":{"type":"string"},"repo":{"type":"string"},"pullNumber":{"type":"number"}}}`)
	args := write(t, "a.json", `{"days": 2.5, "units": "k", "x": 1}`)
	suiteFile := write(t, "suite.json", `[{"description":"g","schema":{"type":"integer"},"tests":[
		{"description":"one","data":1,"valid":true},{"description":"big","data":18446744073709551616,"valid":true},
		{"description":"wrong on purpose","data":"x","valid":true}]}]`)
	cases := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string // expected exactly, unless prefixed by "~" (contains)
		stderr string // contained
	}{
		{"valid from stdin", []string{"check", "-schema", schema, "-"}, `{"location":"Paris"}`, 0, "", ""},
		{"invalid from a file", []string{"check", "-schema", schema, args}, "", 1,
			"missing required property 'location'\nproperty 'days' must be integer\nproperty 'units' must be one of ['c', 'f']\nunexpected property 'x'\n", ""},
		{"gateway style", []string{"check", "-schema", schema, "-gateway"}, `{}`, 1, "Missing required parameter: `location`\n", ""},
		{"detailed style", []string{"check", "-schema", schema, "-detailed"}, `{"loction":"Paris","days":"2","units":"C"}`, 1,
			"missing required property 'location'\nunexpected property 'loction' (did you mean 'location'?)\nproperty 'days' must be integer, not string\nproperty 'units' must be one of ['c', 'f'] (did you mean 'c'?)\n", ""},
		{"detailed style, the name sent for a required one", []string{"check", "-schema", pull, "-detailed"}, `{"owner":"octo","repo":"hello","pull_number":42}`, 1,
			"missing required property 'pullNumber' (sent 'pull_number')\n", ""},
		{"default style, the missing name alone", []string{"check", "-schema", pull}, `{"owner":"octo","repo":"hello","pull_number":42}`, 1,
			"missing required property 'pullNumber'\n", ""},
		{"one style at a time", []string{"check", "-schema", schema, "-gateway", "-detailed"}, `{}`, 2, "", "one style"},
		{"a name that reads as another", []string{"check", "-schema", schema}, `{"location":"Paris","\u212a":1,"a\u202eb":2}`, 1,
			"unexpected property \"\\u212a\"\nunexpected property \"a\\u202eb\"\n", ""},
		{"bad schema", []string{"check", "-schema", bad}, `{}`, 2, "", `unknown type "strnig"`},
		{"no schema", []string{"check"}, "", 2, "", "usage"},
		{"unknown command", []string{"frobnicate"}, "", 2, "", "unknown command"},
		{"suite", []string{"suite", suiteFile}, "", 1, "~2 passed, 1 failed\n", ""},
		{"lint advice", []string{"lint", loose}, "", 1, "~#/properties/customer_email", ""},
		{"lint, nothing to say", []string{"lint", schema}, "", 0, "", ""},
		{"lint bad schema", []string{"lint", bad}, "", 2, "", "strnig"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(c.args, strings.NewReader(c.stdin), &out, &errOut)
			if code != c.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, c.code, errOut.String())
			}
			if want, ok := strings.CutPrefix(c.stdout, "~"); ok {
				if !strings.Contains(out.String(), want) {
					t.Errorf("stdout %q lacks %q", out.String(), want)
				}
			} else if out.String() != c.stdout {
				t.Errorf("stdout %q, want %q", out.String(), c.stdout)
			}
			if !strings.Contains(errOut.String(), c.stderr) {
				t.Errorf("stderr %q lacks %q", errOut.String(), c.stderr)
			}
		})
	}
}

// TestHelp: -h prints the usage with every flag to stdout and exits 0; a mistake prints the
// error, then the same usage, to stderr and exits 2.
func TestHelp(t *testing.T) {
	checkUsage := []string{"mcpvalidate check -schema S.json", "-schema string", "-format", "-gateway", "-detailed"}
	suiteUsage := []string{"mcpvalidate suite [-format] FILE.json...", "-format\n"}
	lintUsage := []string{"mcpvalidate lint [-target T] S.json", "-target string", "-upstream string"}
	all := slices.Concat(checkUsage, suiteUsage, lintUsage)
	cases := []struct {
		args   []string
		code   int
		err    string   // the error before the usage on stderr (exit 2)
		has    []string // in the usage
		hasNot []string
	}{
		{[]string{"-h"}, 0, "", all, nil},
		{[]string{"-help"}, 0, "", all, nil},
		{[]string{"--help"}, 0, "", all, nil},
		{[]string{"check", "-h"}, 0, "", checkUsage, []string{"mcpvalidate suite", "mcpvalidate lint"}},
		{[]string{"check", "-schema", "s.json", "-help"}, 0, "", checkUsage, nil},
		{[]string{"suite", "-h"}, 0, "", suiteUsage, []string{"-schema", "mcpvalidate lint"}},
		{[]string{"lint", "-h"}, 0, "", lintUsage, []string{"-format", "mcpvalidate check"}},
		{nil, 2, "", all, nil},
		{[]string{"frobnicate"}, 2, `mcpvalidate: bad usage: unknown command "frobnicate"`, all, nil},
		{[]string{"check", "-nope"}, 2, "mcpvalidate: bad usage: flag provided but not defined: -nope", checkUsage, []string{"mcpvalidate lint"}},
		{[]string{"check", "-schema"}, 2, "mcpvalidate: bad usage: flag needs an argument: -schema", checkUsage, nil},
		{[]string{"suite"}, 2, "mcpvalidate: bad usage: suite needs at least one file", suiteUsage, []string{"mcpvalidate check"}},
		{[]string{"lint"}, 2, "mcpvalidate: bad usage: lint needs one schema file, a server's command after --, or -upstream", lintUsage, []string{"mcpvalidate check"}},
		{[]string{"lint", "-target", "mistral", "s.json"}, 2, `mcpvalidate: bad usage: -target is one of openai-strict, anthropic, anthropic-strict, gemini, not "mistral"`, lintUsage, nil},
		{[]string{"lint", "-upstream", "http://127.0.0.1:1/mcp", "--", "server"}, 2, "mcpvalidate: bad usage: lint takes -upstream or a command, not both", lintUsage, nil},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(c.args, strings.NewReader(""), &out, &errOut)
			printed, other := out.String(), errOut.String()
			if c.code != 0 {
				printed, other = other, printed
			}
			if code != c.code {
				t.Errorf("exit %d, want %d", code, c.code)
			}
			if other != "" {
				t.Errorf("the other stream got %q", other)
			}
			if c.err != "" {
				printed = strings.TrimPrefix(printed, c.err+"\n")
			}
			if !strings.HasPrefix(printed, "usage:\n") {
				t.Errorf("want %q, then the usage; got\n%s", c.err, printed)
			}
			for _, s := range c.has {
				if !strings.Contains(printed, s) {
					t.Errorf("usage lacks %q:\n%s", s, printed)
				}
			}
			for _, s := range c.hasNot {
				if strings.Contains(printed, s) {
					t.Errorf("usage has %q:\n%s", s, printed)
				}
			}
		})
	}
}
