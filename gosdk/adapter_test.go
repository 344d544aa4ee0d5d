package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"weak"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpvalidate/mcpvalidate/guard"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const weatherSchema = `{"type":"object","properties":{"location":{"type":"string"},"days":{"type":"integer"},
"units":{"type":"string","enum":["c","f"]}},"required":["location"],"additionalProperties":false}`

// contractCalls are the weather tool's reference calls and the answers the contract gives them, the same as the
// mcp-go adapter's (TestContractToolCalls).
var contractCalls = []struct {
	name, args string
	want       string // the result's text
	isError    bool
}{
	{"days as a word", `{"location": "Paris", "days": "two"}`, "Invalid arguments: property 'days' must be integer", true},
	{"every kind at once", `{"days": 2.5, "units": "k", "x": 1}`, "Invalid arguments: missing required property 'location'; property 'days' must be integer; property 'units' must be one of ['c', 'f']; unexpected property 'x'", true},
	{"days as a boolean", `{"location": "Paris", "days": true}`, "Invalid arguments: property 'days' must be integer", true},
	{"arguments not an object", `["Paris"]`, "Invalid arguments: arguments must be an object", true},
	{"absent arguments count as {}", ``, "Invalid arguments: missing required property 'location'", true},
	{"valid", `{"location": "Paris", "days": 2}`, "Sunny in Paris", false},
}

// forecast answers "Sunny in <location>" and counts its calls.
func forecast(calls *atomic.Int64) mcp.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		calls.Add(1)
		var in struct{ Location string }
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Sunny in " + in.Location}}}, nil
	}
}

func weatherTool() *mcp.Tool {
	return &mcp.Tool{Name: "weather", Description: "Forecast for a city", InputSchema: json.RawMessage(weatherSchema)}
}

// A caller calls tools: go-sdk's client session, or one with the guard in front.
type caller interface {
	CallTool(context.Context, *mcp.CallToolParams) (*mcp.CallToolResult, error)
}

// call calls the tool with raw arguments (none when args is empty) and returns the result.
func call(t testing.TB, cs caller, name, args string) *mcp.CallToolResult {
	t.Helper()
	params := &mcp.CallToolParams{Name: name}
	if args != "" {
		params.Arguments = json.RawMessage(args)
	}
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatalf("%s(%s): %v", name, args, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func TestHandlerAnswersTheContractCalls(t *testing.T) {
	var calls atomic.Int64
	srv := newServer()
	g := New()
	tool := weatherTool()
	srv.AddTool(tool, g.Handler(tool, forecast(&calls)))
	cs := connect(t, srv)
	for _, c := range contractCalls {
		t.Run(c.name, func(t *testing.T) {
			before := calls.Load()
			res := call(t, cs, "weather", c.args)
			if got := text(res); got != c.want || res.IsError != c.isError {
				t.Errorf("got %q (isError %v), want %q (isError %v)", got, res.IsError, c.want, c.isError)
			}
			if ran := calls.Load() > before; ran == c.isError {
				t.Errorf("handler ran: %v, for a call whose refusal is %v", ran, c.isError)
			}
			if _, hasMeta := res.Meta[guard.MetaKey]; hasMeta {
				t.Errorf("_meta %v without WithViolationMeta", res.Meta)
			}
		})
	}
}

// TestRefusalCarriesViolationsAsData: under WithViolationMeta, a refusal's _meta holds the
// violations the text lists, with their JSON Pointers.
func TestRefusalCarriesViolationsAsData(t *testing.T) {
	srv := newServer()
	tool := weatherTool()
	srv.AddTool(tool, New(guard.WithViolationMeta()).Handler(tool, forecast(new(atomic.Int64))))
	res := call(t, connect(t, srv), "weather", `{"location": "Paris", "days": "two"}`)
	b, err := json.Marshal(res.Meta[guard.MetaKey])
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Of         string
		Violations []struct{ Pointer, Kind, Message string }
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if meta.Of != "arguments" || len(meta.Violations) != 1 || meta.Violations[0].Pointer != "/days" ||
		meta.Violations[0].Kind != "type" || meta.Violations[0].Message != "property 'days' must be integer" {
		t.Errorf("_meta: %s", b)
	}
}

type weatherIn struct {
	Location string `json:"location"`
	Days     int    `json:"days,omitempty"`
	Units    string `json:"units,omitempty"`
}

type weatherOut struct {
	Forecast string `json:"forecast"`
}

// typedWeather is the weather tool as a typed tool, its schema given with the enum that
// inference cannot write.
func typedWeather(t *testing.T) *mcp.Tool {
	t.Helper()
	s, err := jsonschema.For[weatherIn](nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Properties["units"].Enum = []any{"c", "f"}
	s.Properties["units"].Default = json.RawMessage(`"c"`)
	return &mcp.Tool{Name: "weather", InputSchema: s}
}

// TestAddToolTyped: a typed tool's calls are checked by the guard before go-sdk decodes
// them: the model reads the guard's messages, every violation at once, and the handler
// gets valid arguments with the schema's defaults.
func TestAddToolTyped(t *testing.T) {
	var got atomic.Value
	h := func(_ context.Context, _ *mcp.CallToolRequest, in weatherIn) (*mcp.CallToolResult, weatherOut, error) {
		got.Store(in)
		return nil, weatherOut{Forecast: "Sunny in " + in.Location}, nil
	}
	srv := newServer()
	AddTool(New(), srv, typedWeather(t), h)
	cs := connect(t, srv)

	res := call(t, cs, "weather", `{"days": "three", "units": "kelvin", "extra": 1}`)
	want := "Invalid arguments: missing required property 'location'; property 'days' must be integer; property 'units' must be one of ['c', 'f']; unexpected property 'extra'"
	if !res.IsError || text(res) != want {
		t.Errorf("got %q (isError %v), want %q", text(res), res.IsError, want)
	}
	if got.Load() != nil {
		t.Errorf("the handler ran with %+v", got.Load())
	}

	res = call(t, cs, "weather", `{"location": "Oslo", "days": 2}`)
	if res.IsError || text(res) != `{"forecast":"Sunny in Oslo"}` {
		t.Errorf("valid call: %q (isError %v)", text(res), res.IsError)
	}
	if in := got.Load(); in != (weatherIn{Location: "Oslo", Days: 2, Units: "c"}) {
		t.Errorf("the handler got %+v, want the default units", in)
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].OutputSchema == nil {
		t.Errorf("tools/list: %+v, %v; want weather with its inferred output schema", tools, err)
	}
}

// TestObserverCountersAndRepairs: go-sdk calls reach the same observer events, counters
// and repair ratio as mcp-go calls: the session's ID (none on in-memory transports), the
// client's name and version.
func TestObserverCountersAndRepairs(t *testing.T) {
	var mu sync.Mutex
	var events []guard.Event
	g := New(guard.WithObserver(func(e guard.Event) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
	}))
	srv := newServer()
	tool := weatherTool()
	srv.AddTool(tool, g.Handler(tool, forecast(new(atomic.Int64))))
	cs := connect(t, srv)
	call(t, cs, "weather", `{"days": 1}`)
	call(t, cs, "weather", `{"location": 5}`)
	call(t, cs, "weather", `{"location": "Rome"}`)

	mu.Lock()
	defer mu.Unlock()
	if len(events) != 3 {
		t.Fatalf("%d events, want 3", len(events))
	}
	for i, want := range []guard.Outcome{guard.Refused, guard.Refused, guard.Accepted} {
		e := events[i]
		if e.Outcome != want || e.Tool != "weather" || e.SessionID != cs.ID() ||
			e.ClientName != "client" || e.ClientVersion != "v1" {
			t.Errorf("event %d: %+v, want %v from the client's session", i, e, want)
		}
	}
	if v := events[0].Violations; len(v) != 1 || v[0].Kind != guard.KindRequired {
		t.Errorf("first event's violations: %+v", v)
	}
	st := g.Guard().Stats()
	if len(st) != 1 || st[0].Accepted != 1 || st[0].Refused != 2 || st[0].Repaired != 1 || st[0].Retries != 2 {
		t.Errorf("stats %+v", st)
	}
}

// TestBrokenSchemaRefusesEveryCall: a schema the guard cannot compile fails closed.
func TestBrokenSchemaRefusesEveryCall(t *testing.T) {
	var calls atomic.Int64
	var outcome atomic.Value
	g := New(guard.WithObserver(func(e guard.Event) { outcome.Store(e.Outcome) }))
	srv := newServer()
	tool := &mcp.Tool{Name: "broken", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"pattern":"(unclosed"}}}`)}
	srv.AddTool(tool, g.Handler(tool, forecast(&calls)))
	res := call(t, connect(t, srv), "broken", `{"id": "x"}`)
	if !res.IsError || !strings.Contains(text(res), "its input schema is invalid") || calls.Load() != 0 {
		t.Errorf("got %q (isError %v), %d calls", text(res), res.IsError, calls.Load())
	}
	if outcome.Load() != guard.SchemaBroken {
		t.Errorf("outcome %v, want SchemaBroken", outcome.Load())
	}
}

// TestOutputValidation: under WithOutputValidation a raw tool's result that does not match
// its outputSchema is withheld.
func TestOutputValidation(t *testing.T) {
	srv := newServer()
	tool := &mcp.Tool{Name: "station", InputSchema: json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"celsius":{"type":"number"}},"required":["celsius"]}`)}
	var celsius atomic.Pointer[any]
	h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{StructuredContent: map[string]any{"celsius": *celsius.Load()}}, nil
	}
	srv.AddTool(tool, New(guard.WithOutputValidation()).Handler(tool, h))
	cs := connect(t, srv)
	warm, mild := any("warm"), any(21.5)
	celsius.Store(&mild)
	if res := call(t, cs, "station", `{}`); res.IsError {
		t.Errorf("a matching result withheld: %q", text(res))
	}
	celsius.Store(&warm)
	res := call(t, cs, "station", `{}`)
	if !res.IsError || !strings.HasPrefix(text(res), "The tool failed on the server's side") {
		t.Errorf("a result that does not match: %q (isError %v)", text(res), res.IsError)
	}
}

// TestWithheldResultRepairsNothing: a call whose result is withheld for not matching the
// outputSchema does not repair the refusal before it; the next call whose result reaches
// the client does, and its Accepted event tells the observers so.
func TestWithheldResultRepairsNothing(t *testing.T) {
	var mu sync.Mutex
	var events []guard.Event
	g := New(guard.WithOutputValidation(), guard.WithObserver(func(e guard.Event) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
	}))
	srv := newServer()
	tool := &mcp.Tool{Name: "station", InputSchema: json.RawMessage(`{"type":"object","required":["id"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"celsius":{"type":"number"}},"required":["celsius"]}`)}
	var celsius atomic.Pointer[any]
	h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{StructuredContent: map[string]any{"celsius": *celsius.Load()}}, nil
	}
	srv.AddTool(tool, g.Handler(tool, h))
	cs := connect(t, srv)
	warm, mild := any("warm"), any(21.5)
	if res := call(t, cs, "station", `{}`); !res.IsError {
		t.Fatal("a call without id was not refused")
	}
	celsius.Store(&warm)
	if res := call(t, cs, "station", `{"id": 1}`); !strings.HasPrefix(text(res), "The tool failed on the server's side") {
		t.Fatalf("a result that does not match was sent: %q", text(res))
	}
	if st := g.Guard().Stats()[0]; st.Repaired != 0 || st.Retries != 0 || st.ResultRefused != 1 {
		t.Errorf("after a withheld result: %+v, want nothing repaired", st)
	}
	if held := g.Guard().SessionsAwaitingRepair(); held != 1 {
		t.Errorf("%d sessions awaiting repair after a withheld result, want 1", held)
	}
	celsius.Store(&mild)
	if res := call(t, cs, "station", `{"id": 1}`); res.IsError {
		t.Fatalf("a result that matches was withheld: %q", text(res))
	}
	if st := g.Guard().Stats()[0]; st.Repaired != 1 || st.Retries != 1 || st.Accepted != 2 || st.Refused != 1 {
		t.Errorf("after a result sent: %+v, want 1 repair of 1 refusal", st)
	}
	if held := g.Guard().SessionsAwaitingRepair(); held != 0 {
		t.Errorf("%d sessions awaiting repair, want 0", held)
	}
	mu.Lock()
	defer mu.Unlock()
	var got []string
	for _, e := range events {
		got = append(got, fmt.Sprintf("%s %d", e.Outcome, e.Retries))
	}
	if want := []string{"refused 0", "accepted 0", "result refused 0", "accepted 1"}; !slices.Equal(got, want) {
		t.Errorf("events (outcome, retries) %q, want %q", got, want)
	}
}

// TestRegistrationChurn registers the tool again and again with schemas that refuse each
// other's calls while calls run: every call that reaches a handler is valid against the
// schema that handler was registered with.
func TestRegistrationChurn(t *testing.T) {
	srv := newServer()
	g := New()
	const rounds = 200
	var wrong, ran, refused atomic.Int64
	register := func(v int) {
		tool := &mcp.Tool{Name: "pick", InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"v":{"const":%d}},"required":["v"]}`, v))}
		h := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ V int }
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.V != v {
				wrong.Add(1)
			}
			ran.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		}
		srv.AddTool(tool, g.Handler(tool, h))
	}
	register(0)
	cs := connect(t, srv)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				params := &mcp.CallToolParams{Name: "pick", Arguments: map[string]any{"v": (i + w) % 2}}
				res, err := cs.CallTool(context.Background(), params)
				switch {
				case err != nil && !strings.Contains(err.Error(), "unknown tool"):
					t.Error(err)
					return
				case err == nil && res.IsError:
					refused.Add(1)
				}
			}
		}()
	}
	for i := range rounds {
		if i%5 == 4 {
			srv.RemoveTools("pick")
		}
		register(i % 2)
	}
	wg.Wait()
	if n := wrong.Load(); n != 0 {
		t.Errorf("%d calls reached a handler whose schema refuses them", n)
	}
	if ran.Load() == 0 || refused.Load() == 0 {
		t.Errorf("%d calls ran and %d were refused: the churn tested nothing", ran.Load(), refused.Load())
	}
}

// TestCheckTools: CheckTools reports every broken schema in the order of the tools' names,
// and leaves the good ones compiled for the handlers bound to the same texts.
func TestCheckTools(t *testing.T) {
	g := New(guard.WithOutputValidation())
	weather := weatherTool()
	zeta := &mcp.Tool{Name: "zeta", InputSchema: json.RawMessage(`{"type":"strnig"}`)}
	alpha := &mcp.Tool{Name: "alpha", InputSchema: json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","required":"celsius"}`)}
	err := g.CheckTools(zeta, weather, alpha)
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok || len(joined.Unwrap()) != 2 {
		t.Fatalf("CheckTools: %v, want two errors", err)
	}
	for i, want := range []struct{ tool, schema string }{{"alpha", "outputSchema"}, {"zeta", "inputSchema"}} {
		var te *guard.ToolError
		var se *guard.SchemaError
		if e := joined.Unwrap()[i]; !errors.As(e, &te) || !errors.As(e, &se) || te.Tool != want.tool || te.Schema != want.schema {
			t.Errorf("error %d: %v, want %s's %s", i, e, want.tool, want.schema)
		}
	}
	if err := g.CheckTools(weather); err != nil {
		t.Errorf("a good tool: %v", err)
	}
	compiled := g.core.CacheStats().Compiled
	srv := newServer()
	srv.AddTool(weather, g.Handler(weather, forecast(new(atomic.Int64))))
	if res := call(t, connect(t, srv), "weather", `{"location": "Oslo"}`); res.IsError {
		t.Errorf("valid call: %q", text(res))
	}
	if n := g.core.CacheStats().Compiled; n != compiled {
		t.Errorf("the call compiled %d schemas again", n-compiled)
	}
}

// TestCheckServer: CheckServer finds, among the tools a server lists, every one whose
// schema does not compile and every one that no handler of the guard serves, in the order
// of their names; the server serves as before.
func TestCheckServer(t *testing.T) {
	g := New(guard.WithOutputValidation())
	srv := newServer()
	weather := weatherTool()
	srv.AddTool(weather, g.Handler(weather, forecast(new(atomic.Int64))))
	broken := &mcp.Tool{Name: "broken", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"minimum":"one"}}}`)}
	srv.AddTool(broken, g.Handler(broken, forecast(new(atomic.Int64))))
	unguarded := &mcp.Tool{Name: "alpha", InputSchema: json.RawMessage(`{"type":"object"}`)}
	srv.AddTool(unguarded, forecast(new(atomic.Int64)))
	AddTool(g, srv, &mcp.Tool{Name: "typed"}, func(context.Context, *mcp.CallToolRequest, struct {
		N int `json:"n"`
	}) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	})

	err := g.CheckServer(srv)
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok || len(joined.Unwrap()) != 2 {
		t.Fatalf("CheckServer: %v, want two errors", err)
	}
	var first, second *guard.ToolError
	var se *guard.SchemaError
	if !errors.As(joined.Unwrap()[0], &first) || first.Tool != "alpha" || !errors.Is(first, errUnguarded) {
		t.Errorf("first error %v, want alpha unguarded", joined.Unwrap()[0])
	}
	if !errors.As(joined.Unwrap()[1], &second) || second.Tool != "broken" || !errors.As(second, &se) {
		t.Errorf("second error %v, want broken's schema", joined.Unwrap()[1])
	}
	if res := call(t, connect(t, srv), "weather", `{"days": 1}`); !res.IsError {
		t.Errorf("after CheckServer, an invalid call: %q", text(res))
	}
}

// TestCheckToolsAfterAddTool: CheckTools of a typed tool checks the schemas AddTool
// inferred for it, which the tool given to AddTool does not hold, and the tool's entry goes
// when the tool does.
func TestCheckToolsAfterAddTool(t *testing.T) {
	g := New(guard.WithOutputValidation())
	srv := newServer()
	tool := &mcp.Tool{Name: "greet"}
	AddTool(g, srv, tool, greetHandler)
	if err := g.CheckTools(tool); err != nil {
		t.Fatalf("CheckTools: %v", err)
	}
	if tool.InputSchema != nil || tool.OutputSchema != nil {
		t.Errorf("AddTool changed the caller's tool: %+v", tool)
	}
	if n := g.core.CacheStats().Compiled; n != 2 {
		t.Errorf("CheckTools compiled %d schemas, want the inferred input and output schemas", n)
	}
	if res := call(t, connect(t, srv), "greet", `{"name":"Ann"}`); res.IsError {
		t.Errorf("valid call: %q", text(res))
	}
	if n := g.core.CacheStats().Compiled; n != 2 {
		t.Errorf("the call compiled %d schemas again", n-2)
	}
	if err := g.CheckTools(&mcp.Tool{Name: "unregistered"}); !errors.Is(err, errNoInputSchema) {
		t.Errorf("CheckTools of a tool without a schema, never given to AddTool: %v", err)
	}

	gone := make([]weak.Pointer[mcp.Tool], 50)
	for i := range gone {
		tool := &mcp.Tool{Name: "greet"}
		AddTool(g, newServer(), tool, greetHandler)
		gone[i] = weak.Make(tool)
	}
	for i := 0; i < 100 && remembered(gone) > 0; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if n := remembered(gone); n > 0 {
		t.Errorf("%d of %d typed tools remembered after they went", n, len(gone))
	}
	if _, ok := registered.Load(weak.Make(tool)); !ok {
		t.Error("a live tool forgotten")
	}
}

func remembered(tools []weak.Pointer[mcp.Tool]) (n int) {
	for _, t := range tools {
		if _, ok := registered.Load(t); ok {
			n++
		}
	}
	return n
}

// TestSessionEndForgetsRefusals: a session's refusals awaiting repair are forgotten when
// the session ends, and the guard waits on no session that has ended.
func TestSessionEndForgetsRefusals(t *testing.T) {
	// In a bubble, synctest.Wait returns once the guard's goroutines that wait on the
	// sessions have heard their ends and finished.
	synctest.Test(t, func(t *testing.T) {
		g := New()
		srv := newServer()
		tool := weatherTool()
		srv.AddTool(tool, g.Handler(tool, forecast(new(atomic.Int64))))
		const sessions = 50
		for range sessions {
			st, ct := mcp.NewInMemoryTransports()
			ss, err := srv.Connect(context.Background(), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil).Connect(context.Background(), ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			call(t, cs, "weather", `{"days": 1}`)
			call(t, cs, "weather", `{"days": 2}`)
			cs.Close()
			ss.Wait()
		}
		synctest.Wait()
		if held, w := g.core.SessionsAwaitingRepair(), waiting(); held != 0 || w != 0 {
			t.Errorf("after %d sessions ended: %d awaiting repair, %d waited on; want none", sessions, held, w)
		}
		if st := g.Guard().Stats()[0]; st.Refused != 2*sessions || st.Repaired != 0 {
			t.Errorf("stats %+v", st)
		}
	})
}

func waiting() (n int) {
	watched.Range(func(any, any) bool { n++; return true })
	return n
}

// TestRepairsAfterAbandonedSessions: more sessions than the guard remembers end with a
// refusal and stay open, never heard from again; a later session's repair is still
// counted.
func TestRepairsAfterAbandonedSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	g := New()
	srv := newServer()
	tool := weatherTool()
	srv.AddTool(tool, g.Handler(tool, forecast(new(atomic.Int64))))
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil)
	for i := range 10_500 {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), &namedTransport{st, "gone-" + strconv.Itoa(i)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := client.Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cs.Close()
			ss.Wait()
		})
		call(t, cs, "weather", `{"days": 1}`)
	}
	live := connect(t, srv)
	call(t, live, "weather", `{"days": 1}`)
	call(t, live, "weather", `{"location": "Rome"}`)
	if st := g.Guard().Stats()[0]; st.Repaired != 1 || st.Retries != 1 {
		t.Errorf("stats %+v, want the live session's repair counted", st)
	}
	if held := g.core.SessionsAwaitingRepair(); held > 10_000 {
		t.Errorf("%d sessions awaiting repair, want at most 10,000", held)
	}
}

// namedTransport gives its connection a session ID, as go-sdk's HTTP transports do.
type namedTransport struct {
	mcp.Transport
	id string
}

func (t *namedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	return namedConnection{c, t.id}, err
}

type namedConnection struct {
	mcp.Connection
	id string
}

func (c namedConnection) SessionID() string { return c.id }

// TestRefusalResultType: a refusal reaches the client with resultType "complete" on
// 2026-07-28 (go-sdk sets it on every result of that protocol) and without it before,
// from raw and typed tools; go-sdk has no tasks, so a call's task member is not read.
func TestRefusalResultType(t *testing.T) {
	g := New()
	srv := newServer()
	raw := &mcp.Tool{Name: "raw", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)}
	srv.AddTool(raw, g.Handler(raw, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}))
	AddTool(g, srv, &mcp.Tool{Name: "typed"}, func(context.Context, *mcp.CallToolRequest, struct {
		N int `json:"n"`
	}) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	})
	const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}},`
	for _, modern := range []bool{false, true} {
		ctx := context.Background()
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := ct.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		send := func(line string) {
			t.Helper()
			msg, err := jsonrpc.DecodeMessage([]byte(line))
			if err != nil {
				t.Fatal(err)
			}
			if err := conn.Write(ctx, msg); err != nil {
				t.Fatal(err)
			}
		}
		answer := func() *jsonrpc.Response {
			t.Helper()
			for {
				msg, err := conn.Read(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if r, ok := msg.(*jsonrpc.Response); ok {
					return r
				}
			}
		}
		meta := modernMeta
		if !modern {
			meta = ""
			send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
			answer()
			send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
		}
		for _, name := range []string{"raw", "typed"} {
			send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `"name":"` + name + `","arguments":{"n":"one"},"task":{}}}`)
			r := answer()
			var res map[string]any
			if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || res["isError"] != true {
				t.Fatalf("modern=%v %s: answered %s, error %v", modern, name, r.Result, r.Error)
			}
			if rt, has := res["resultType"]; modern && rt != "complete" || !modern && has {
				t.Errorf("modern=%v %s: resultType %v: %s", modern, name, rt, r.Result)
			}
		}
		conn.Close()
		ss.Wait()
	}
}

// TestSchemaChangedAfterRegistration: go-sdk lists the very tool given to AddTool, so a
// server that changes that tool's inputSchema or outputSchema afterwards (its raw bytes
// rewritten in place, or another schema put in the field) has tools/list show the new
// schema at once: calls and results are checked against that one, never the schema the
// tool held when it was registered.
func TestSchemaChangedAfterRegistration(t *testing.T) {
	const loose, strict = `{"type":"object","properties":{"n":{"maximum":999999}}}`, `{"type":"object","properties":{"n":{"maximum":9     }}}`
	tests := []struct {
		name   string
		schema func() any
		change func(tool *mcp.Tool)
	}{
		{"raw bytes rewritten", func() any { return json.RawMessage(loose) },
			func(tool *mcp.Tool) { copy(tool.InputSchema.(json.RawMessage), strict) }},
		{"raw bytes replaced", func() any { return json.RawMessage(loose) },
			func(tool *mcp.Tool) { tool.InputSchema = json.RawMessage(strict) }},
		{"a map replaced", func() any { return map[string]any{"type": "object"} },
			func(tool *mcp.Tool) { tool.InputSchema = json.RawMessage(strict) }},
		{"a schema replaced", func() any { return &jsonschema.Schema{Type: "object"} },
			func(tool *mcp.Tool) {
				tool.InputSchema = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"n": {Maximum: jsonschema.Ptr(9.0)}}}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ran atomic.Int64
			srv := newServer()
			tool := &mcp.Tool{Name: "pay", InputSchema: tt.schema()}
			srv.AddTool(tool, New().Handler(tool, forecast(&ran)))
			cs := connect(t, srv)
			if res := call(t, cs, "pay", `{"n":1000}`); res.IsError {
				t.Fatalf("refused before the change: %s", text(res))
			}
			tt.change(tool)
			listed, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if res := call(t, cs, "pay", `{"n":1000}`); !res.IsError {
				t.Errorf("listed as %s, the tool ran on {\"n\":1000}", mustJSON(t, listed.Tools[0].InputSchema))
			}
		})
	}

	for name, first := range map[string]any{"outputSchema replaced": json.RawMessage(`{"type":"object"}`), "outputSchema added": nil} {
		t.Run(name, func(t *testing.T) {
			srv := newServer()
			tool := &mcp.Tool{Name: "n", InputSchema: json.RawMessage(`{"type":"object"}`)}
			if first != nil {
				tool.OutputSchema = first
			}
			srv.AddTool(tool, New(guard.WithOutputValidation()).Handler(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{StructuredContent: map[string]any{"n": "x"}, Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}}, nil
			}))
			cs := connect(t, srv)
			if res := call(t, cs, "n", `{}`); res.IsError {
				t.Fatalf("withheld before the change: %s", text(res))
			}
			tool.OutputSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
			if res := call(t, cs, "n", `{}`); !res.IsError {
				t.Errorf("the result reached the client against the outputSchema listed now: %s", mustJSON(t, res))
			}
		})
	}
}

// TestSchemaChangesTold: a tool registered again with another schema, or whose schema
// field holds another value, is told as a change, with the paths that differ; its first
// registration, or the same schema again, tells nothing.
func TestSchemaChangesTold(t *testing.T) {
	var changes []guard.SchemaChange
	g := New(guard.WithSchemaChanges(func(c guard.SchemaChange) { changes = append(changes, c) }))
	srv := newServer()
	tool := &mcp.Tool{Name: "pick", InputSchema: json.RawMessage(`{"type":"object","properties":{"v":{"const":1}}}`)}
	h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	srv.AddTool(tool, g.Handler(tool, h))
	srv.AddTool(tool, g.Handler(tool, h))
	if len(changes) != 0 {
		t.Fatalf("changes told before any: %+v", changes)
	}
	again := &mcp.Tool{Name: "pick", InputSchema: json.RawMessage(`{"type":"object","properties":{"v":{"const":2}}}`)}
	srv.AddTool(again, g.Handler(again, h))
	cs := connect(t, srv)
	again.InputSchema = map[string]any{"type": "object", "properties": map[string]any{"v": map[string]any{"const": 2}}, "required": []any{"v"}}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "pick", Arguments: map[string]any{"v": 2}}); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, c := range changes {
		for _, tc := range c.Changed {
			if tc.Tool != "pick" || tc.From == tc.To {
				t.Errorf("change %+v", tc)
			}
			paths = append(paths, strings.Join(tc.Paths, " "))
		}
	}
	if strings.Join(paths, " | ") != "/inputSchema/properties/v/const | /inputSchema/required" {
		t.Errorf("paths told %q", paths)
	}
}
