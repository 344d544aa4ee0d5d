package proxy

import (
	"cmp"
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

// TestInterceptGatewayRoundsNumbers: the gateway hands a call's arguments on decoded into
// an any and marshalled again (pkg/gateway/handlers.go), so the server gets each number as
// the float64 it rounds to: 1e-400 as 0, 9007199254740995 as 9007199254740996. A call
// whose numbers so read break the schema is refused, as the server would get it.
func TestInterceptGatewayRoundsNumbers(t *testing.T) {
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	tools := `{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{` +
		`"x":{"type":"number","exclusiveMinimum":0},"n":{"type":"integer","maximum":9007199254740995},"s":{"type":"string"}}}}]}`
	in, err := p.Interceptor([]byte(tools))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args   string
		passes bool
	}{
		{`{"x":1e-400}`, false},
		{`{"n":9007199254740995}`, false},
		{`{"x":0.5,"n":9007199254740994,"s":"1e-400"}`, true},
		{`{"x":2.50,"n":12345678901234567}`, false}, // 12345678901234568 past the maximum
		{`{"x":1E0,"n":-9007199254740995}`, true},
	} {
		out, err := in.Intercept([]byte(`{"Session":{},"Params":{"name":"t","arguments":` + c.args + `}}`))
		if err != nil || (out == nil) != c.passes {
			t.Errorf("%s: %s %v", c.args, out, err)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`{"a":[1e-400,"9007199254740995",9007199254740995]}`, `{"a":[0,"9007199254740995",9.007199254740996e+15]}`},
		{`{"a":"\"1e-400"}`, ``},
		{`[` + strings.Repeat(`0.1,`, 1<<18) + `1e-400]`, `[` + strings.Repeat(`0.1,`, 1<<18) + `0]`}, // a megabyte
	} {
		got, changed := asFloat64s([]byte(c.in))
		if want := cmp.Or(c.want, c.in); string(got) != want || changed != (c.want != "") {
			t.Errorf("asFloat64s(%.60s) = %.60s, %v", c.in, got, changed)
		}
	}
}
