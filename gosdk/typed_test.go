package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpvalidate/mcpvalidate/guard"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type greetIn struct {
	Name     string `json:"name" jsonschema:"who to greet"`
	Greeting string `json:"greeting,omitempty" jsonschema:"the word to greet with"`
	Times    int    `json:"times,omitempty" jsonschema:"how many times"`
}

type greetOut struct {
	Message string `json:"message"`
}

func greet(in greetIn) string {
	return fmt.Sprintf("%s, %s x%d", in.Greeting, in.Name, in.Times)
}

// greetSchema is the schema inferred from greetIn, without additionalProperties: false
// and with a default greeting.
func greetSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	s, err := jsonschema.For[greetIn](nil)
	if err != nil {
		t.Fatal(err)
	}
	s.AdditionalProperties = nil
	s.Properties["greeting"].Default = json.RawMessage(`"hello"`)
	return s
}

// registration is how add registers a typed tool.
type registration int

const (
	viaGoSDK     registration = iota // mcp.AddTool
	viaChecked                       // typedHandler, for a guard that enforces
	viaUnchecked                     // typedHandler, for a guard that only reports
)

// add registers h as via says.
func add[In, Out any](t *testing.T, srv *mcp.Server, via registration, tool *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	t.Helper()
	if via == viaGoSDK {
		mcp.AddTool(srv, tool, h)
		return
	}
	g := New(guard.WithReportOnly())
	if via == viaChecked {
		g = New()
	}
	tt, th, err := typedHandler(tool, h, g.core)
	if err != nil {
		t.Fatalf("typedHandler(%s): %v", tool.Name, err)
	}
	srv.AddTool(tt, th)
}

// addParityTools registers the same tools on srv, built afresh for each server.
func addParityTools(t *testing.T, srv *mcp.Server, via registration) {
	add(t, srv, via, &mcp.Tool{Name: "greet", Description: "inferred schemas, pointer output"},
		func(_ context.Context, _ *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, *greetOut, error) {
			return nil, &greetOut{Message: greet(in)}, nil
		})
	add(t, srv, via, &mcp.Tool{Name: "greet_default", InputSchema: greetSchema(t)},
		func(_ context.Context, _ *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, greetOut, error) {
			return nil, greetOut{Message: greet(in)}, nil
		})
	add(t, srv, via, &mcp.Tool{Name: "default_only", InputSchema: &jsonschema.Schema{
		Type:       "object",
		Properties: map[string]*jsonschema.Schema{"times": {Type: "integer", Default: json.RawMessage(`3`)}},
	}},
		func(_ context.Context, _ *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, map[string]any, error) {
			return nil, in, nil
		})
	add(t, srv, via, &mcp.Tool{Name: "untyped_out"},
		func(_ context.Context, _ *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, any, error) {
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "custom"}}}
			return res, map[string]any{"name": in.Name}, nil
		})
	add(t, srv, via, &mcp.Tool{Name: "map_in"},
		func(_ context.Context, _ *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, map[string]any, error) {
			return nil, map[string]any{"echo": in, "len": len(in)}, nil
		})
	add(t, srv, via, &mcp.Tool{Name: "any_in"},
		func(_ context.Context, _ *mcp.CallToolRequest, in any) (*mcp.CallToolResult, greetOut, error) {
			return nil, greetOut{Message: fmt.Sprintf("%T %v", in, in)}, nil
		})
	add(t, srv, via, &mcp.Tool{Name: "fails"},
		func(context.Context, *mcp.CallToolRequest, greetIn) (*mcp.CallToolResult, *greetOut, error) {
			return nil, &greetOut{Message: "unused"}, errors.New("the greeter is out")
		})
	add(t, srv, via, &mcp.Tool{Name: "wire_error"},
		func(context.Context, *mcp.CallToolRequest, greetIn) (*mcp.CallToolResult, *greetOut, error) {
			return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no greeting today"}
		})
	add(t, srv, via, &mcp.Tool{Name: "nil_out"},
		func(context.Context, *mcp.CallToolRequest, greetIn) (*mcp.CallToolResult, *greetOut, error) {
			return nil, nil, nil
		})
	add(t, srv, via, &mcp.Tool{Name: "nil_out_provided", OutputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest, greetIn) (*mcp.CallToolResult, *greetOut, error) {
			return nil, nil, nil
		})
	add(t, srv, via, &mcp.Tool{Name: "bad_out", OutputSchema: &jsonschema.Schema{
		Type:       "object",
		Properties: map[string]*jsonschema.Schema{"message": {Type: "string", MinLength: jsonschema.Ptr(10)}},
	}},
		func(context.Context, *mcp.CallToolRequest, greetIn) (*mcp.CallToolResult, greetOut, error) {
			return nil, greetOut{Message: "hi"}, nil
		})
	add(t, srv, via, &mcp.Tool{Name: "list_out"},
		func(_ context.Context, _ *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, []string, error) {
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "names"}}}
			return res, []string{in.Name, "Bob"}, nil
		})
	addInputRequestsTool(t, srv, via)
}

// dropEmptyArguments removes the empty object that ClientSession.CallTool sends in place
// of absent arguments, so that a call without arguments reaches the server without them.
func dropEmptyArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p, ok := req.GetParams().(*mcp.CallToolParams); ok {
			if m, ok := p.Arguments.(map[string]any); ok && len(m) == 0 {
				p.Arguments = nil
			}
		}
		return next(ctx, method, req)
	}
}

// connect starts srv and a client on in-memory transports; both are closed at cleanup.
// The client's multi round-trip handling is off, so input requests reach the test.
func connect(t testing.TB, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ss.Close()
		ss.Wait()
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"},
		clientOptions())
	client.AddSendingMiddleware(dropEmptyArguments)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func newServer() *mcp.Server {
	return mcp.NewServer(&mcp.Implementation{Name: "parity", Version: "v1"}, nil)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// callJSON calls the tool and returns the result's JSON, or the protocol error's message.
func callJSON(t *testing.T, cs *mcp.ClientSession, name string, args any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "error: " + err.Error()
	}
	return mustJSON(t, res)
}

// TestTypedHandlerParity holds typedHandler's answers to mcp.AddTool's, call for call:
// checked (the guard having validated the arguments) on valid calls, unchecked (for a
// guard that only reports) on every call.
func TestTypedHandlerParity(t *testing.T) {
	sdkServer, ourServer, uncheckedServer := newServer(), newServer(), newServer()
	addParityTools(t, sdkServer, viaGoSDK)
	addParityTools(t, ourServer, viaChecked)
	addParityTools(t, uncheckedServer, viaUnchecked)
	sdk, ours, unchecked := connect(t, sdkServer), connect(t, ourServer), connect(t, uncheckedServer)

	sdkTools, err := sdk.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ourTools, err := ours.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mustJSON(t, ourTools), mustJSON(t, sdkTools); got != want {
		t.Errorf("tools/list differs\nours:   %s\ngo-sdk: %s", got, want)
	}
	if want := 12 + len(inputRequestsParity); len(sdkTools.Tools) != want {
		t.Errorf("go-sdk lists %d tools, want %d", len(sdkTools.Tools), want)
	}

	tests := []parityCase{
		{"required only", "greet", map[string]any{"name": "Ann"}, `", Ann x0`},
		{"all fields", "greet", map[string]any{"name": "Ann", "greeting": "hi", "times": 2}, `hi, Ann x2`},
		{"duplicate key", "greet", json.RawMessage(`{"name":"Ann","name":"Bob"}`), `", Bob x0`},
		{"whole number with a fraction", "greet", json.RawMessage(`{"name":"Ann","times":2.0}`), `", Ann x2`},
		{"whole number with an exponent", "greet", json.RawMessage(`{"name":"Ann","times":3e0}`), `", Ann x3`},
		{"default applied", "greet_default", map[string]any{"name": "Ann"}, `hello, Ann x0`},
		{"default applied, no arguments", "default_only", nil, `"structuredContent":{"times":3}`},
		{"other case ignored", "greet_default", json.RawMessage(`{"name":"Ann","Name":"Bob","Greeting":"yo","Times":3}`), `hello, Ann x0`},
		{"out any", "untyped_out", map[string]any{"name": "Ann"}, `"structuredContent":{"name":"Ann"}`},
		{"map in, absent args", "map_in", nil, `"structuredContent":{"echo":{},"len":0}`},
		{"map in, empty object", "map_in", json.RawMessage(`{}`), `"structuredContent":{"echo":{},"len":0}`},
		{"map in, null args", "map_in", json.RawMessage(`null`), `"structuredContent":{"echo":null,"len":0}`},
		{"map in", "map_in", map[string]any{"a": 1, "b": []any{true, nil}}, `"len":2`},
		{"any in, absent args", "any_in", nil, `map[string]interface {} map[]`},
		{"any in, null args", "any_in", json.RawMessage(`null`), `\u003cnil\u003e`},
		{"any in", "any_in", map[string]any{"x": "y"}, `map[x:y]`},
		{"handler error", "fails", map[string]any{"name": "Ann"}, `"isError":true`},
		{"jsonrpc error", "wire_error", map[string]any{"name": "Ann"}, `error: `},
		{"typed nil output", "nil_out", map[string]any{"name": "Ann"}, `"structuredContent":{"message":""}`},
		{"typed nil, provided schema", "nil_out_provided", map[string]any{"name": "Ann"}, `"structuredContent":{"message":""}`},
		{"invalid output", "bad_out", map[string]any{"name": "Ann"}, `error: `},
		{"non-object output", "list_out", map[string]any{"name": "Ann"}, `{"type":"text","text":"[\"Ann\",\"Bob\"]"}`},
	}
	tests = append(tests, inputRequestsParity...)
	invalid := []struct {
		name, tool string
		args       any
		want       string
	}{
		{"missing required", "greet", map[string]any{"times": 2}, `missing properties: [\"name\"]`},
		{"string for integer", "greet_default", map[string]any{"name": "Ann", "times": "2"}, `want \"integer\"`},
		{"extra member", "greet", map[string]any{"name": "Ann", "x": 1}, `unexpected additional properties [\"x\"]`},
		{"other case only", "greet", map[string]any{"Name": "Ann"}, `"isError":true`},
		{"not an object", "greet", json.RawMessage(`["Ann"]`), `into Go value of type map[string]interface {}`},
		{"wrong type under a default", "default_only", map[string]any{"times": 1.5}, `want \"integer\"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := callJSON(t, sdk, tc.tool, tc.args)
			got := callJSON(t, ours, tc.tool, tc.args)
			if got != want {
				t.Errorf("results differ\nours:   %s\ngo-sdk: %s", got, want)
			}
			if got := callJSON(t, unchecked, tc.tool, tc.args); got != want {
				t.Errorf("results differ\nunchecked: %s\ngo-sdk:    %s", got, want)
			}
			if !strings.Contains(want, tc.want) {
				t.Errorf("go-sdk answered %s, want it to contain %s", want, tc.want)
			}
		})
	}
	for _, tc := range invalid {
		t.Run("unchecked/"+tc.name, func(t *testing.T) {
			want := callJSON(t, sdk, tc.tool, tc.args)
			if got := callJSON(t, unchecked, tc.tool, tc.args); got != want {
				t.Errorf("results differ\nunchecked: %s\ngo-sdk:    %s", got, want)
			}
			if !strings.Contains(want, tc.want) {
				t.Errorf("go-sdk answered %s, want it to contain %s", want, tc.want)
			}
		})
	}
}

func TestTypedHandlerSchemaErrorsMatchAddTool(t *testing.T) {
	tests := []struct {
		name string
		add  func(srv *mcp.Server) // with mcp.AddTool
		ours func() error          // with typedHandler
	}{
		{
			name: "invalid default",
			add: func(srv *mcp.Server) {
				mcp.AddTool(srv, badDefaultTool(), greetHandler)
			},
			ours: func() error {
				_, _, err := typedHandler(badDefaultTool(), greetHandler, New().core)
				return err
			},
		},
		{
			name: "uninferable output",
			add: func(srv *mcp.Server) {
				mcp.AddTool(srv, &mcp.Tool{Name: "chan_out"}, chanHandler)
			},
			ours: func() error {
				_, _, err := typedHandler(&mcp.Tool{Name: "chan_out"}, chanHandler, New().core)
				return err
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.ours()
			if err == nil {
				t.Fatal("typedHandler succeeded, want an error")
			}
			panicked := func() (p any) {
				defer func() { p = recover() }()
				tc.add(newServer())
				return nil
			}()
			if want := fmt.Sprint(panicked); !strings.HasSuffix(want, ": "+err.Error()) {
				t.Errorf("mcp.AddTool panicked with %q; typedHandler returned %q", want, err)
			}
		})
	}
}

func badDefaultTool() *mcp.Tool {
	return &mcp.Tool{Name: "bad_default", InputSchema: &jsonschema.Schema{
		Type:       "object",
		Properties: map[string]*jsonschema.Schema{"times": {Type: "integer", Default: json.RawMessage(`"twice"`)}},
	}}
}

func greetHandler(_ context.Context, _ *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, greetOut, error) {
	return nil, greetOut{Message: greet(in)}, nil
}

func chanHandler(context.Context, *mcp.CallToolRequest, greetIn) (*mcp.CallToolResult, chan int, error) {
	return nil, nil, nil
}

type exactIn struct {
	N     int64  `json:"n"`
	D     int64  `json:"d,omitempty"`
	Label string `json:"label,omitempty"`
	Opts  struct {
		Depth int64  `json:"depth,omitempty"`
		Mode  string `json:"mode,omitempty"`
	} `json:"opts,omitzero"`
}

// exactTool is an integer n that is a multiple of 3, and defaults beside it and below it,
// one of them too large for a float64 to hold.
func exactTool(multipleOf float64) *mcp.Tool {
	n := &jsonschema.Schema{Type: "integer"}
	if multipleOf != 0 {
		n.MultipleOf = &multipleOf
	}
	return &mcp.Tool{Name: "exact", InputSchema: &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"n":     n,
			"d":     {Type: "integer", Default: json.RawMessage(`9007199254740995`)},
			"label": {Type: "string", Default: json.RawMessage(`"plain"`)},
			"opts": {Type: "object", Properties: map[string]*jsonschema.Schema{
				"depth": {Type: "integer", Default: json.RawMessage(`-9007199254740993`)},
				"mode":  {Type: "string"},
			}},
		},
		Required: []string{"n"},
	}}
}

// TestAddToolKeepsIntegersExact: the handler receives the integers the guard checked, at
// and beyond float64's exact range, and the defaults as the schema writes them.
func TestAddToolKeepsIntegersExact(t *testing.T) {
	var got atomic.Value
	h := func(_ context.Context, _ *mcp.CallToolRequest, in exactIn) (*mcp.CallToolResult, any, error) {
		got.Store(in)
		return nil, nil, nil
	}
	srv := newServer()
	AddTool(New(), srv, exactTool(3), h)
	AddTool(New(), srv, &mcp.Tool{Name: "any_integer", InputSchema: exactTool(0).InputSchema}, h)
	cs := connect(t, srv)

	const (
		depth = -9007199254740993
		d     = 9007199254740995
	)
	tests := []struct {
		tool, args string
		want       exactIn
	}{
		{"exact", `{"n":9007199254740993}`, exactIn{N: 9007199254740993, D: d, Label: "plain"}},
		{"exact", `{"n":-9007199254740993,"label":"x","opts":{}}`, exactIn{N: -9007199254740993, D: d, Label: "x"}},
		{"any_integer", `{"n":9223372036854775807,"d":9223372036854775806}`, exactIn{N: 9223372036854775807, D: 9223372036854775806, Label: "plain"}},
		{"any_integer", `{"n":-9223372036854775808,"opts":{"mode":"m"}}`, exactIn{N: -9223372036854775808, D: d, Label: "plain"}},
		{"any_integer", `{ "opts" : { "mode" : "m" } , "n" : 1e0 , "d":-0 }`, exactIn{N: 1, Label: "plain"}},
	}
	for _, tc := range tests {
		want := tc.want
		want.Opts.Depth = depth
		if strings.Contains(tc.args, `"mode"`) {
			want.Opts.Mode = "m"
		}
		got.Store(exactIn{})
		res := call(t, cs, tc.tool, tc.args)
		if res.IsError {
			t.Errorf("%s(%s): %s", tc.tool, tc.args, text(res))
			continue
		}
		if in := got.Load().(exactIn); in != want {
			t.Errorf("%s(%s): the handler got %+v, want %+v", tc.tool, tc.args, in, want)
		}
	}
	for _, args := range []string{`{"n":9007199254740992}`, `{"n":9223372036854775808}`} {
		if res := call(t, cs, "exact", args); !res.IsError {
			t.Errorf("exact(%s) ran", args)
		}
	}
}

// TestAddToolChecksBeforeDefaults: the guard checks the arguments as sent, go-sdk with the
// input schema's defaults written in. A keyword that looks at a member with a default
// (here dependentRequired) is met by a call that leaves the member out; go-sdk, having
// written the default in, refuses it. Neither writes in the default of a required member,
// so both refuse a call without it.
func TestAddToolChecksBeforeDefaults(t *testing.T) {
	type modeIn struct {
		Name  string `json:"name"`
		Mode  string `json:"mode"`
		Level int    `json:"level"`
	}
	tool := func() *mcp.Tool {
		return &mcp.Tool{Name: "mode", InputSchema: &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"name":  {Type: "string", Default: json.RawMessage(`"anon"`)},
				"mode":  {Type: "string", Default: json.RawMessage(`"fast"`)},
				"level": {Type: "integer"},
			},
			Required:          []string{"name"},
			DependentRequired: map[string][]string{"mode": {"level"}},
		}}
	}
	h := func(_ context.Context, _ *mcp.CallToolRequest, in modeIn) (*mcp.CallToolResult, modeIn, error) {
		return nil, in, nil
	}
	sdkServer, ourServer := newServer(), newServer()
	mcp.AddTool(sdkServer, tool(), h)
	AddTool(New(), ourServer, tool(), h)
	sdk, ours := connect(t, sdkServer), connect(t, ourServer)

	tests := []struct {
		args      string
		sdk, ours string // substrings of the answers
	}{
		{`{"name":"Ann"}`, `dependentRequired[\"mode\"]: missing properties [\"level\"]`, `"structuredContent":{"level":0,"mode":"fast","name":"Ann"}`},
		{`{"mode":"slow","level":1}`, `required: missing properties: [\"name\"]`, `missing required property 'name'`},
	}
	for _, tc := range tests {
		if got := mustJSON(t, call(t, sdk, "mode", tc.args)); !strings.Contains(got, tc.sdk) {
			t.Errorf("go-sdk answered %s to %s, want it to contain %s", got, tc.args, tc.sdk)
		}
		if got := mustJSON(t, call(t, ours, "mode", tc.args)); !strings.Contains(got, tc.ours) {
			t.Errorf("AddTool answered %s to %s, want it to contain %s", got, tc.args, tc.ours)
		}
	}
}

// parityCase is a call that go-sdk alone and the guard answer the same way; want is a
// substring of the answer.
type parityCase struct {
	name, tool string
	args       any
	want       string // a substring of go-sdk's answer
}

// codeOut is a typed tool's output that breaks codeSchema twice, at members whose
// violations go-sdk's own check names in no fixed order.
type codeOut struct {
	Code  string `json:"code"`
	Count int    `json:"count"`
	Note  string `json:"note,omitempty"`
}

const codeSchema = `{"type":"object","properties":{"code":{"type":"string","pattern":"^[a-z]+$"},
"count":{"type":"integer","minimum":1},"note":{"type":"string","default":"none"}},"required":["code","count"]}`

// TestAddToolWithholdsInvalidOutput: under WithOutputValidation, a typed tool's output
// that breaks its outputSchema is withheld as a raw tool's result is, the guard checking it
// before go-sdk's own check could answer: the same isError result, call after call,
// quoting nothing of the output, counted in ResultRefused and told to the observers. An
// output that matches reaches the client as go-sdk sends it, its defaults written in.
func TestAddToolWithholdsInvalidOutput(t *testing.T) {
	var (
		mu       sync.Mutex
		outcomes = map[string][]guard.Outcome{}
	)
	g := New(guard.WithOutputValidation(), guard.WithViolationMeta(), guard.WithObserver(func(e guard.Event) {
		mu.Lock()
		defer mu.Unlock()
		outcomes[e.Tool] = append(outcomes[e.Tool], e.Outcome)
	}))
	out := codeOut{Code: "42", Count: 0}
	srv, sdkServer := newServer(), newServer()
	raw := &mcp.Tool{Name: "raw", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(codeSchema)}
	srv.AddTool(raw, g.Handler(raw, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{StructuredContent: out}, nil
	}))
	typed := func(_ context.Context, _ *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, codeOut, error) {
		if in["valid"] == true {
			return nil, codeOut{Code: "ok", Count: 2}, nil
		}
		return nil, out, nil
	}
	AddTool(g, srv, &mcp.Tool{Name: "typed", OutputSchema: json.RawMessage(codeSchema)}, typed)
	mcp.AddTool(sdkServer, &mcp.Tool{Name: "typed", OutputSchema: json.RawMessage(codeSchema)}, typed)
	cs, sdk := connect(t, srv), connect(t, sdkServer)

	const calls = 20
	want := callJSON(t, cs, "raw", map[string]any{})
	for range calls {
		if got := callJSON(t, cs, "typed", map[string]any{}); got != want {
			t.Fatalf("typed tool answered\n%s\nraw tool\n%s", got, want)
		}
	}
	if !strings.Contains(want, `"isError":true`) || strings.Contains(want, "42") {
		t.Errorf("the raw tool answered %s", want)
	}
	for _, st := range g.Guard().Stats() {
		if st.Tool == "typed" && (st.ResultRefused != calls || st.Accepted != calls) {
			t.Errorf("typed tool's counters %+v, want %d results refused", st, calls)
		}
	}
	mu.Lock()
	if got, want := outcomes["typed"][:2], outcomes["raw"]; !slices.Equal(got, want) {
		t.Errorf("the observers were told %v of the typed tool, %v of the raw tool", got, want)
	}
	mu.Unlock()

	valid := map[string]any{"valid": true}
	if got, want := callJSON(t, cs, "typed", valid), callJSON(t, sdk, "typed", valid); got != want {
		t.Errorf("a valid output sent as\n%s\ngo-sdk sends\n%s", got, want)
	}
}

// TestReportOnlyTypedToolReportsInvalidOutput: under WithReportOnly and
// WithOutputValidation, a typed tool's output that breaks its outputSchema is answered as
// go-sdk answers it, and the guard reports it in ResultRefused.
func TestReportOnlyTypedToolReportsInvalidOutput(t *testing.T) {
	g := New(guard.WithReportOnly(), guard.WithOutputValidation())
	srv := newServer()
	AddTool(g, srv, &mcp.Tool{Name: "typed", OutputSchema: json.RawMessage(codeSchema)},
		func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, codeOut, error) {
			return nil, codeOut{Code: "42"}, nil
		})
	if got := callJSON(t, connect(t, srv), "typed", map[string]any{}); !strings.HasPrefix(got, "error: ") ||
		!strings.Contains(got, "validating tool output") {
		t.Errorf("answered %s, want go-sdk's error", got)
	}
	if st := g.Guard().Stats(); len(st) != 1 || st[0].ResultRefused != 1 {
		t.Errorf("counters %+v, want one result refused", st)
	}
}

// TestAddToolNullArguments: null arguments count as {}, as absent ones do: checked as {},
// a required member's absence refused in the same words, and the handler given what
// go-sdk alone gives it, or, where go-sdk writes in defaults, {} with the defaults.
func TestAddToolNullArguments(t *testing.T) {
	var ran ranLog
	record := func(tool string, in any) {
		ran.mu.Lock()
		defer ran.mu.Unlock()
		ran.ran = append(ran.ran, fmt.Sprintf("%s %#v", tool, in))
	}
	open := &jsonschema.Schema{Type: "object"}
	withDefault := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"times": {Type: "integer", Default: json.RawMessage(`3`)}}}
	register := func(srv *mcp.Server, g *Guard) {
		add := func(tool *mcp.Tool, h mcp.ToolHandlerFor[greetIn, any]) {
			if g == nil {
				mcp.AddTool(srv, tool, h)
			} else {
				AddTool(g, srv, tool, h)
			}
		}
		addMap := func(tool *mcp.Tool, h mcp.ToolHandlerFor[map[string]any, any]) {
			if g == nil {
				mcp.AddTool(srv, tool, h)
			} else {
				AddTool(g, srv, tool, h)
			}
		}
		addPtr := func(tool *mcp.Tool, h mcp.ToolHandlerFor[*greetIn, any]) {
			if g == nil {
				mcp.AddTool(srv, tool, h)
			} else {
				AddTool(g, srv, tool, h)
			}
		}
		add(&mcp.Tool{Name: "struct", InputSchema: open}, func(_ context.Context, _ *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, any, error) {
			record("struct", in)
			return nil, nil, nil
		})
		add(&mcp.Tool{Name: "required"}, func(_ context.Context, _ *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, any, error) {
			record("required", in)
			return nil, nil, nil
		})
		addMap(&mcp.Tool{Name: "map"}, func(_ context.Context, _ *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
			record("map", in)
			return nil, nil, nil
		})
		addPtr(&mcp.Tool{Name: "pointer", InputSchema: open}, func(_ context.Context, _ *mcp.CallToolRequest, in *greetIn) (*mcp.CallToolResult, any, error) {
			record("pointer", in)
			return nil, nil, nil
		})
		if g != nil { // go-sdk alone panics on null arguments where it writes in a default
			addMap(&mcp.Tool{Name: "default", InputSchema: withDefault}, func(_ context.Context, _ *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
				record("default", in)
				return nil, nil, nil
			})
		}
	}
	sdkServer, ourServer := newServer(), newServer()
	register(sdkServer, nil)
	register(ourServer, New())
	sdk, ours := connect(t, sdkServer), connect(t, ourServer)

	for _, tool := range []string{"struct", "map", "pointer"} {
		for _, args := range []string{`null`, ` null `, ``} {
			if res := call(t, sdk, tool, args); res.IsError {
				t.Fatalf("go-sdk refused %s(%s): %s", tool, args, text(res))
			}
			want := ran.take()
			if res := call(t, ours, tool, args); res.IsError {
				t.Errorf("%s(%s) refused: %s", tool, args, text(res))
			}
			if got := ran.take(); !slices.Equal(got, want) {
				t.Errorf("%s(%s): the handler got %q, go-sdk gives %q", tool, args, got, want)
			}
		}
	}
	for _, args := range []string{`null`, ``, `{}`} {
		if res := call(t, ours, "default", args); res.IsError {
			t.Errorf("default(%s) refused: %s", args, text(res))
		}
		if got, want := ran.take(), []string{`default map[string]interface {}{"times":3}`}; !slices.Equal(got, want) {
			t.Errorf("default(%s): the handler got %q, want %q", args, got, want)
		}
		const missing = "Invalid arguments: missing required property 'name'"
		if res := call(t, ours, "required", args); !res.IsError || text(res) != missing {
			t.Errorf("required(%s): %s, want %q", args, mustJSON(t, res), missing)
		}
	}
	if got := ran.take(); len(got) != 0 {
		t.Errorf("handlers ran on refused calls: %q", got)
	}

	// Under report-only, go-sdk's own check answers, null counted as {} there too.
	reportOnly := newServer()
	register(reportOnly, New(guard.WithReportOnly()))
	ro := connect(t, reportOnly)
	if res := call(t, ro, "default", `null`); res.IsError {
		t.Errorf("report-only: default(null) refused: %s", text(res))
	}
	if got, want := ran.take(), []string{`default map[string]interface {}{"times":3}`}; !slices.Equal(got, want) {
		t.Errorf("report-only: default(null): the handler got %q, want %q", got, want)
	}
	if got, want := mustJSON(t, call(t, ro, "required", `null`)), mustJSON(t, call(t, sdk, "required", `null`)); got != want {
		t.Errorf("report-only: required(null) answered\n%s\ngo-sdk alone\n%s", got, want)
	}
}

// TestAddToolNumbersAsInReadsThem: a number that In's float64 field rounds onto a bound
// the schema excludes is refused, as go-sdk alone refuses it: checked exactly, 1e-400 is
// above an exclusiveMinimum of 0 and 0.99999999999999999999 below an exclusiveMaximum of
// 1, but the handler would get 0 and 1.
func TestAddToolNumbersAsInReadsThem(t *testing.T) {
	type in struct {
		Amount float64 `json:"amount"`
	}
	schema := json.RawMessage(`{"type":"object","properties":{"amount":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}},"required":["amount"]}`)
	for _, guarded := range []bool{true, false} {
		var got []float64
		h := func(_ context.Context, _ *mcp.CallToolRequest, v in) (*mcp.CallToolResult, any, error) {
			got = append(got, v.Amount)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil, nil
		}
		srv := newServer()
		if guarded {
			AddTool(New(), srv, &mcp.Tool{Name: "pay", InputSchema: schema}, h)
		} else {
			mcp.AddTool(srv, &mcp.Tool{Name: "pay", InputSchema: schema}, h)
		}
		cs := connect(t, srv)
		for _, args := range []string{`{"amount":1e-400}`, `{"amount":0.99999999999999999999}`, `{"amount":-1e-400}`} {
			if res := call(t, cs, "pay", args); !res.IsError {
				t.Errorf("guarded %v: %s ran", guarded, args)
			}
		}
		if res := call(t, cs, "pay", `{"amount":0.5}`); res.IsError || !slices.Equal(got, []float64{0.5}) {
			t.Errorf("guarded %v: 0.5: %q, the handler got %v", guarded, text(res), got)
		}
	}
}

// TestAddToolErrorResultOutputChecked: a typed tool's handler returns an isError result
// with an output that breaks the outputSchema. go-sdk alone refuses it (it validates every
// output it marshals); under WithOutputValidation the guard, which checks only successes,
// leaves go-sdk's check to stand there, and the output does not reach the client.
func TestAddToolErrorResultOutputChecked(t *testing.T) {
	type out struct {
		Account string `json:"account"`
	}
	outSchema := json.RawMessage(`{"type":"object","properties":{"account":{"type":"string","pattern":"^\\*+[0-9]{4}$"}},"required":["account"]}`)
	h := func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, out, error) {
		res := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "partial failure"}}}
		return res, out{Account: "DE89370400440532013000"}, nil
	}
	for _, g := range []*Guard{nil, New(), New(guard.WithOutputValidation()), New(guard.WithOutputValidation(), guard.WithReportOnly())} {
		srv := newServer()
		tool := &mcp.Tool{Name: "acct", OutputSchema: outSchema}
		if g == nil {
			mcp.AddTool(srv, tool, h)
		} else {
			AddTool(g, srv, tool, h)
		}
		cs := connect(t, srv)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "acct", Arguments: map[string]any{}})
		if err == nil && strings.Contains(mustJSON(t, res), "DE89370400440532013000") {
			t.Errorf("guard %v: an output that breaks the outputSchema reached the client: %s", g != nil, mustJSON(t, res))
		}
	}
}
