package gosdk

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpvalidate/mcpvalidate/guard"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// packagesIn is a typed tool's input as gopls declares its tools: camel-case names, one of
// them required.
type packagesIn struct {
	PackagePaths []string `json:"packagePaths"`
	Limit        int      `json:"limit,omitempty"`
	Mode         string   `json:"mode,omitempty"`
	Filter       any      `json:"filter,omitempty"`
}

// packagesSchema is a provided schema for packagesIn: an open object, with an enum, a
// bound and defaults.
func packagesSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"packagePaths": {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
			"limit":        {Type: "integer", Minimum: jsonschema.Ptr(1.0), Default: json.RawMessage(`10`)},
			"mode":         {Type: "string", Enum: []any{"exported", "all"}, Default: json.RawMessage(`"exported"`)},
			"filter":       {},
		},
		Required: []string{"packagePaths"},
	}
}

// ranLog records, per server, the inputs its handlers ran with.
type ranLog struct {
	mu  sync.Mutex
	ran []string
}

func (l *ranLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	ran := l.ran
	l.ran = nil
	return ran
}

// addPackagesTools registers the same two tools, one with the schema inferred from
// packagesIn and one with packagesSchema, with mcp.AddTool when g is nil, else with AddTool.
func addPackagesTools(srv *mcp.Server, g *Guard, log *ranLog) {
	h := func(_ context.Context, req *mcp.CallToolRequest, in packagesIn) (*mcp.CallToolResult, packagesIn, error) {
		got, _ := json.Marshal(in)
		log.mu.Lock()
		log.ran = append(log.ran, req.Params.Name+" "+string(got))
		log.mu.Unlock()
		return nil, in, nil
	}
	for _, tool := range []*mcp.Tool{{Name: "inferred"}, {Name: "provided", InputSchema: packagesSchema()}} {
		if g == nil {
			mcp.AddTool(srv, tool, h)
		} else {
			AddTool(g, srv, tool, h)
		}
	}
}

// deepFilter nests arrays deeper than the guard's depth limit allows.
var deepFilter = strings.Repeat("[", 70) + strings.Repeat("]", 70)

// modelMistakes are calls as models make them, valid and invalid, to both tools, with the
// guard's verdict on each: whether it would refuse the call.
var modelMistakes = []struct {
	name, tool, args string
	refused          bool
}{
	{"valid, required only", "inferred", `{"packagePaths":["fmt"]}`, false},
	{"valid, every member", "inferred", `{"packagePaths":["fmt","io"],"limit":3,"mode":"all","filter":{"x":[1,2]}}`, false},
	{"valid, defaults filled in", "provided", `{"packagePaths":["fmt"]}`, false},
	{"valid, every member", "provided", `{"packagePaths":["fmt"],"limit":2,"mode":"all","extra":true}`, false},
	{"misspelt required name", "inferred", `{"package_paths":["fmt"]}`, true},
	{"misspelt required name, open object", "provided", `{"package_paths":["fmt"]}`, true},
	{"required name in another case", "inferred", `{"PackagePaths":["fmt"]}`, true},
	{"string for number", "inferred", `{"packagePaths":["fmt"],"limit":"10"}`, true},
	{"string for number", "provided", `{"packagePaths":["fmt"],"limit":"10"}`, true},
	{"fraction for integer", "inferred", `{"packagePaths":["fmt"],"limit":2.5}`, true},
	{"below the minimum", "provided", `{"packagePaths":["fmt"],"limit":0}`, true},
	{"extra member", "inferred", `{"packagePaths":["fmt"],"verbose":true}`, true},
	{"wrong enum", "provided", `{"packagePaths":["fmt"],"mode":"private"}`, true},
	{"missing required", "inferred", `{"limit":3}`, true},
	{"missing required, no arguments", "provided", ``, true},
	{"string for array", "provided", `{"packagePaths":"fmt"}`, true},
	{"null for array, which the inferred schema allows", "inferred", `{"packagePaths":null}`, false},
	{"deeper than the depth limit", "inferred", `{"packagePaths":["fmt"],"filter":` + deepFilter + `}`, true},
	{"arguments not an object", "provided", `["fmt"]`, true},
}

// TestReportOnlyTypedToolProtectsAsGoSDK: under WithReportOnly, a typed tool added with
// AddTool answers every call as the same tool added with mcp.AddTool does, refusals,
// defaults and decoding included, and its handler runs on exactly the same calls; the guard
// only reports, with the verdicts it gives when it enforces.
func TestReportOnlyTypedToolProtectsAsGoSDK(t *testing.T) {
	var sdkRan, ourRan ranLog
	sdkServer, ourServer := newServer(), newServer()
	addPackagesTools(sdkServer, nil, &sdkRan)
	var (
		mu     sync.Mutex
		events []guard.Event
	)
	g := New(guard.WithReportOnly(), guard.WithObserver(func(e guard.Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}))
	addPackagesTools(ourServer, g, &ourRan)
	sdk, ours := connect(t, sdkServer), connect(t, ourServer)

	sdkRefused := 0
	for _, tc := range modelMistakes {
		t.Run(tc.tool+"/"+tc.name, func(t *testing.T) {
			want := mustJSON(t, call(t, sdk, tc.tool, tc.args))
			sdkRun := sdkRan.take()
			got := mustJSON(t, call(t, ours, tc.tool, tc.args))
			ourRun := ourRan.take()
			if strings.Join(ourRun, "\n") != strings.Join(sdkRun, "\n") {
				t.Errorf("the handler ran with %q under report-only, with %q under go-sdk alone", ourRun, sdkRun)
			}
			if got != want {
				t.Errorf("answers differ\nreport-only: %s\ngo-sdk:      %s", got, want)
			}
			if len(sdkRun) == 0 {
				sdkRefused++
			}

			mu.Lock()
			evs := events
			events = nil
			mu.Unlock()
			if len(evs) != 1 {
				t.Fatalf("%d events, want 1", len(evs))
			}
			if e := evs[0]; (e.Outcome == guard.Refused) != tc.refused || !e.ReportOnly || e.Tool != tc.tool {
				t.Errorf("reported %v (report-only %v) for %s, want refused: %v", e.Outcome, e.ReportOnly, e.Tool, tc.refused)
			}
		})
	}
	// Every invalid call but the one deeper than the guard's limit is one go-sdk refuses too.
	if want := countRefused() - 1; sdkRefused != want {
		t.Errorf("go-sdk alone refused %d calls, want %d", sdkRefused, want)
	}

	var tools []string
	for _, s := range g.Guard().Stats() {
		tools = append(tools, s.Tool)
		if s.Unenforced != s.Refused {
			t.Errorf("%s: %d refusals, %d of them unenforced", s.Tool, s.Refused, s.Unenforced)
		}
	}
	if len(tools) != 2 {
		t.Errorf("stats of %q, want both tools", tools)
	}
}

// TestEnforcingRefusesTheModelMistakes: the verdicts TestReportOnlyTypedToolProtectsAsGoSDK
// expects the guard to report are those it enforces.
func TestEnforcingRefusesTheModelMistakes(t *testing.T) {
	var ran ranLog
	srv := newServer()
	addPackagesTools(srv, New(), &ran)
	cs := connect(t, srv)
	for _, tc := range modelMistakes {
		res := call(t, cs, tc.tool, tc.args)
		run := ran.take()
		refused := res.IsError && strings.HasPrefix(text(res), "Invalid arguments: ")
		if refused != tc.refused || refused == (len(run) == 1) {
			t.Errorf("%s %s: isError %v %q, handler ran %d times; want refused: %v", tc.tool, tc.args, res.IsError, text(res), len(run), tc.refused)
		}
	}
}

func countRefused() int {
	n := 0
	for _, tc := range modelMistakes {
		if tc.refused {
			n++
		}
	}
	return n
}
