package proxy

import (
	"strings"
	"testing"
)

// TestInterceptAmbiguous: a message whose params appear twice, or in two cases, is not
// one the interceptor can read as one call.
func TestInterceptAmbiguous(t *testing.T) {
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := p.Interceptor([]byte(toolsList))
	if err != nil {
		t.Fatal(err)
	}
	bad := `{"name":"weather","arguments":{"days":99}}`
	good := `{"name":"weather","arguments":{"location":"x"}}`
	for _, msg := range []string{
		`{"Params":` + good + `,"params":` + bad + `}`,
		`{"params":` + good + `,"PARAMS":` + bad + `}`,
		`{"params":` + good + `,"params":` + bad + `}`,
		`{"Params":` + good + `,"Params":` + bad + `}`,
	} {
		if out, err := in.Intercept([]byte(msg)); err == nil && out == nil {
			t.Errorf("%s: let go on", msg)
		}
	}
}

// TestInterceptGatewayExec: Docker's MCP Gateway's mcp-exec (its dynamic tools, on by
// default) runs the tool its arguments name with the arguments given there, calling the
// tool's handler past the interceptors: the interceptor checks that call too, as the
// gateway reads it (members in any case, the name trimmed, arguments given as a JSON
// string read from it), and refuses one it cannot tell for sure or whose tool it does not
// know.
func TestInterceptGatewayExec(t *testing.T) {
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	const mcpExec = `{"name":"mcp-exec","inputSchema":{"type":"object","properties":{` +
		`"name":{"type":"string"},"arguments":{}},"required":["name"]}}` // arguments as an older gateway took them, a string too
	in, err := p.Interceptor([]byte(`{"tools":[{"name":"weather","inputSchema":` + weatherSchema + `},` + mcpExec + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	exec := func(args string) string {
		return `{"Session":{},"Params":{"name":"mcp-exec","arguments":` + args + `},"Extra":null}`
	}
	for _, c := range []struct {
		call   string
		passes bool
	}{
		{exec(`{"name":"weather","arguments":{"location":"Oslo"}}`), true},
		{exec(`{"name":"weather","arguments":{"location":"Oslo","days":"3"}}`), false},
		{exec(`{"name":" weather\n","arguments":{"days":"3"}}`), false},
		{exec(`{"Name":"weather","ARGUMENTS":{"days":"3"}}`), false},
		{exec(`{"name":"weather","arguments":"{\"location\":\"Oslo\",\"days\":\"3\"}"}`), false},
		{exec(`{"name":"weather","arguments":"{\"location\":\"Oslo\"}"}`), true},
		{exec(`{"name":"weather","arguments":"not JSON"}`), false},
		{exec(`{"name":"weather"}`), false}, // {}: location is required
		{exec(`{"name":"weather","Name":"other","arguments":{"location":"Oslo"}}`), false},
		{exec(`{"name":"unlisted","arguments":{}}`), false},
		{exec(`{"name":"","arguments":{}}`), false},
		{exec(`{"name":"mcp-exec","arguments":{"name":"weather","arguments":{"days":"3"}}}`), false},
		{exec(`{"name":"mcp-exec","arguments":{"name":"weather","arguments":{"location":"x"}}}`), true},
		{exec(strings.Repeat(`{"name":"mcp-exec","arguments":`, 9) + `{"name":"weather","arguments":{"location":"x"}}` + strings.Repeat("}", 9)), false},
	} {
		out, err := in.Intercept([]byte(c.call))
		if err != nil || (out == nil) != c.passes {
			t.Errorf("%s: %s %v", c.call, out, err)
		}
	}
}
