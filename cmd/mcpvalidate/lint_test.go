package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintTarget: -target reviews a schema file for what the provider does with it.
func TestLintTarget(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(dir, "s.json")
	if err := os.WriteFile(schema, []byte(`{"type":"object","properties":{"url":{"type":"string","format":"uri"}},"required":["url"],"additionalProperties":false}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		target string
		code   int
		out    string
	}{
		{"openai-strict", 1, "#/properties/url/format: rejects: this format is not one strict mode knows (date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid): remove it and say the form in the description [openai-strict/format]\n"},
		{"anthropic", 0, ""},
		{"gemini", 1, "#/additionalProperties: rejects: not a field of Gemini's Schema (\"Invalid JSON payload received. Unknown name\"): remove it, or send the schema as parametersJsonSchema [gemini/unknown-field]\n" +
			"#/properties/url/format: rejects: a string's format must be \"enum\" or \"date-time\" with the Gemini Developer API, \"otherwise requests will fail\": remove it and say the form in the description [gemini/format]\n"},
	} {
		var out, errOut bytes.Buffer
		if code := run([]string{"lint", "-target", c.target, schema}, strings.NewReader(""), &out, &errOut); code != c.code || out.String() != c.out || errOut.Len() > 0 {
			t.Errorf("%s: exit %d, stdout\n%s\nstderr %s\nwant exit %d, stdout\n%s", c.target, code, out.String(), errOut.String(), c.code, c.out)
		}
	}
}

// rawServerTools is what lint -target openai-strict says of rawserver's tools.
const rawServerTools = `calls
  #: rejects: every object must say "additionalProperties": false`

// TestLintServer: lint lists a live server's tools, over stdio from its command and over
// streamable HTTP, and reviews each.
func TestLintServer(t *testing.T) {
	server := rawServer(t)
	var out, errOut bytes.Buffer
	code := run([]string{"lint", "-target", "openai-strict", "--", server}, strings.NewReader(""), &out, &errOut)
	if code != 1 || !strings.Contains(out.String(), rawServerTools) || !strings.HasSuffix(out.String(), "\n3 tools: 3 with findings, 3 that openai-strict rejects\n") {
		t.Errorf("stdio: exit %d, stdout\n%s\nstderr %s", code, out.String(), errOut.String())
	}

	cmd := exec.Command(server, "-http", "127.0.0.1:0")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close() // rawserver exits when its stdin ends
		cmd.Wait()
	})
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	code = run([]string{"lint", "-target", "gemini", "-upstream", "http://" + strings.TrimSpace(addr) + "/mcp"}, strings.NewReader(""), &out, &errOut)
	if want := "weather\n  #/additionalProperties: rejects: not a field of Gemini's Schema"; code != 1 || !strings.HasPrefix(out.String(), want) ||
		!strings.HasSuffix(out.String(), "\n3 tools: 1 with findings, 1 that gemini rejects\n") {
		t.Errorf("HTTP: exit %d, stdout\n%s\nstderr %s", code, out.String(), errOut.String())
	}
}

// TestLintServerGone: a command that is no MCP server is an error.
func TestLintServerGone(t *testing.T) {
	var out, errOut bytes.Buffer
	// Its stdin may close before or after the request is written: either ends the listing.
	if code := run([]string{"lint", "--", "true"}, strings.NewReader(""), &out, &errOut); code != 2 || !strings.HasPrefix(errOut.String(), "mcpvalidate: true: initialize: ") {
		t.Errorf("exit %d, stderr %s", code, errOut.String())
	}
}

// TestSchemasFor: through `mcpvalidate proxy -schemas-for gemini`, the tool list rawserver
// gives is one Gemini takes, where direct it is not.
func TestSchemasFor(t *testing.T) {
	server := rawServer(t)
	t.Setenv(commandRole, "1") // the proxy below is this test binary, as mcpvalidate
	for _, c := range []struct {
		command []string
		code    int
		summary string
	}{
		{[]string{server}, 1, "3 tools: 1 with findings, 1 that gemini rejects"},
		{[]string{os.Args[0], "proxy", "-schemas-for", "gemini", "--", server}, 0, "3 tools: 0 with findings, 0 that gemini rejects"},
	} {
		var out, errOut bytes.Buffer
		code := run(append([]string{"lint", "-target", "gemini", "--"}, c.command...), strings.NewReader(""), &out, &errOut)
		if code != c.code || !strings.HasSuffix(out.String(), c.summary+"\n") {
			t.Errorf("%v: exit %d, stdout\n%s\nstderr %s\nwant exit %d and %q", c.command, code, out.String(), errOut.String(), c.code, c.summary)
		}
	}
}
