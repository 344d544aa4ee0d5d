package mcpvalidate

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpvalidate/mcpvalidate/guard"
)

// packagesArgs is a typed tool's input as gopls declares its tools: camel-case names, one
// of them required.
type packagesArgs struct {
	PackagePaths []string `json:"packagePaths" jsonschema:"required"`
	Limit        int      `json:"limit,omitempty"`
	Mode         string   `json:"mode,omitempty"`
	Filter       any      `json:"filter,omitempty"`
}

// typedRuns records the arguments typed handlers ran with.
type typedRuns struct {
	mu  sync.Mutex
	ran []string
}

func (r *typedRuns) record(tool string, args packagesArgs) {
	got, _ := json.Marshal(args)
	r.mu.Lock()
	r.ran = append(r.ran, tool+" "+string(got))
	r.mu.Unlock()
}

func (r *typedRuns) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ran := r.ran
	r.ran = nil
	return ran
}

// packagesServer serves two tools with mcp-go's typed handlers: one whose schema mcp-go
// infers from packagesArgs, and one declared member by member, closed, with a bound and an
// enum.
func packagesServer(runs *typedRuns, opts ...server.ServerOption) *server.MCPServer {
	srv := server.NewMCPServer("packages", "1.0.0", opts...)
	srv.AddTool(mcp.NewTool("inferred", mcp.WithInputSchema[packagesArgs]()),
		mcp.NewTypedToolHandler(func(_ context.Context, _ mcp.CallToolRequest, args packagesArgs) (*mcp.CallToolResult, error) {
			runs.record("inferred", args)
			return mcp.NewToolResultText("listed"), nil
		}))
	srv.AddTool(mcp.NewTool("declared",
		mcp.WithArray("packagePaths", mcp.Required(), mcp.WithStringItems()),
		mcp.WithInteger("limit", mcp.Min(1)),
		mcp.WithString("mode", mcp.Enum("exported", "all")),
		mcp.WithAny("filter"),
		mcp.WithSchemaAdditionalProperties(false)),
		mcp.NewStructuredToolHandler(func(_ context.Context, _ mcp.CallToolRequest, args packagesArgs) (packagesArgs, error) {
			runs.record("declared", args)
			return args, nil
		}))
	return srv
}

// TestReportOnlyNeverWeakensMCPGo: with mcp-go's own validation on or off, and typed
// handlers binding the arguments, a server with the guard's middleware under
// WithReportOnly answers every call as the same server without it does, and runs its
// handlers on exactly the same calls. The guard reports its verdicts on the calls that
// reach it: all of them, unless mcp-go's validation, which runs before every middleware,
// has answered the call itself.
func TestReportOnlyNeverWeakensMCPGo(t *testing.T) {
	deep := strings.Repeat("[", 70) + strings.Repeat("]", 70)
	calls := []struct {
		name, tool, args string
		refused          bool // by the guard
	}{
		{"valid", "inferred", `{"packagePaths":["fmt"]}`, false},
		{"valid, every member", "declared", `{"packagePaths":["fmt"],"limit":2,"mode":"all","filter":{"x":1}}`, false},
		{"misspelt required name", "inferred", `{"package_paths":["fmt"]}`, true},
		{"misspelt required name", "declared", `{"package_paths":["fmt"]}`, true},
		{"string for number", "inferred", `{"packagePaths":["fmt"],"limit":"10"}`, true},
		{"string for number", "declared", `{"packagePaths":["fmt"],"limit":"10"}`, true},
		{"below the minimum", "declared", `{"packagePaths":["fmt"],"limit":0}`, true},
		{"extra member", "declared", `{"packagePaths":["fmt"],"verbose":true}`, true},
		{"wrong enum", "declared", `{"packagePaths":["fmt"],"mode":"private"}`, true},
		{"missing required", "inferred", `{"limit":3}`, true},
		{"missing required", "declared", `{}`, true},
		{"string for array", "declared", `{"packagePaths":"fmt"}`, true},
		{"deeper than the depth limit", "declared", `{"packagePaths":["fmt"],"filter":` + deep + `}`, true},
	}
	for _, validating := range []bool{true, false} {
		name := "typed handlers alone"
		var opts []server.ServerOption
		if validating {
			name = "with WithInputSchemaValidation"
			opts = append(opts, server.WithInputSchemaValidation())
		}
		t.Run(name, func(t *testing.T) {
			var aloneRuns, guardedRuns typedRuns
			var events []guard.Event
			g := New(guard.WithReportOnly(), guard.WithObserver(func(e guard.Event) { events = append(events, e) }))
			alone := packagesServer(&aloneRuns, opts...)
			guarded := packagesServer(&guardedRuns, append(opts, server.WithToolHandlerMiddleware(g.Middleware()))...)

			aloneRefused := 0
			for _, c := range calls {
				want := call(t, alone, false, c.tool, c.args)
				aloneRan := aloneRuns.take()
				got := call(t, guarded, false, c.tool, c.args)
				guardedRan := guardedRuns.take()
				if strings.Join(guardedRan, "\n") != strings.Join(aloneRan, "\n") {
					t.Errorf("%s %s: the handler ran with %q under report-only, with %q without the guard", c.tool, c.args, guardedRan, aloneRan)
				}
				if got != want {
					t.Errorf("%s %s: answers differ\nreport-only: %s\nmcp-go:      %s", c.tool, c.args, got, want)
				}
				reached := len(aloneRan) == 1 || !validating
				if len(aloneRan) == 0 {
					aloneRefused++
				}
				switch {
				case !reached && len(events) != 0:
					t.Errorf("%s %s: mcp-go refused it, yet the guard saw it: %+v", c.tool, c.args, events)
				case reached && len(events) != 1:
					t.Errorf("%s %s: %d events, want 1", c.tool, c.args, len(events))
				case reached && ((events[0].Outcome == guard.Refused) != c.refused || !events[0].ReportOnly):
					t.Errorf("%s %s: reported %v (report-only %v), want refused: %v", c.tool, c.args, events[0].Outcome, events[0].ReportOnly, c.refused)
				}
				events = nil
			}
			// With its validation, mcp-go refuses every call the guard would but the one
			// deeper than the guard's limit; without, binding refuses the wrong types only.
			if want := map[bool]int{true: 10, false: 3}[validating]; aloneRefused != want {
				t.Errorf("mcp-go alone refused %d of the calls, want %d", aloneRefused, want)
			}
		})
	}
}
