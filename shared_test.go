package mcpvalidate

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvalidate/mcpvalidate/core"
	"github.com/mcpvalidate/mcpvalidate/gosdk"
)

// TestOneGuardForBothFrameworks: a process that serves through mcp-go and go-sdk shares
// one guard, its cache and its counters.
func TestOneGuardForBothFrameworks(t *testing.T) {
	shared := core.New()
	srv, _ := weatherServer(t, Wrap(shared))
	if text, isErr := invoke(t, srv, nil, "weather", map[string]any{"days": 1}); !isErr || text != refusalPrefix+"missing required property 'location'" {
		t.Errorf("mcp-go: %q (isError %v)", text, isErr)
	}

	other := sdk.NewServer(&sdk.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	tool := &sdk.Tool{Name: "weather", InputSchema: json.RawMessage(weatherSchema)}
	var ran atomic.Int64
	other.AddTool(tool, gosdk.Handler(shared, tool, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		ran.Add(1)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Sunny"}}}, nil
	}))
	st, ct := sdk.NewInMemoryTransports()
	ss, err := other.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Wait()
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "client", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "weather", Arguments: map[string]any{"location": "Paris"}})
	if err != nil || res.IsError || ran.Load() != 1 {
		t.Fatalf("go-sdk: %+v, %v", res, err)
	}

	stats := shared.Stats()
	if len(stats) != 1 || stats[0].Refused != 1 || stats[0].Accepted != 1 {
		t.Errorf("stats %+v, want one refusal (mcp-go) and one acceptance (go-sdk)", stats)
	}
	if c := shared.CacheStats(); c.Texts != 1 || c.Compiled != 1 {
		t.Errorf("cache %+v: the two frameworks' copies of one schema text should share one compilation", c)
	}
}
