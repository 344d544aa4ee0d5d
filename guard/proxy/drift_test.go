package proxy

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// TestSchemaChanges: a whole tool list that differs from the one the proxy learned before
// is told to the guard once, with the tools added, removed and changed, the changed
// ones' hashes and the paths where their schemas differ; the same list again, or the
// first one, tells nothing. The log line names the server and no schema's text.
func TestSchemaChanges(t *testing.T) {
	var logged bytes.Buffer
	var changes []guard.SchemaChange
	h := newHarness(t, Options{Logger: slog.New(slog.NewJSONHandler(&logged, nil)),
		Guard: []guard.Option{guard.WithSchemaChanges(func(c guard.SchemaChange) { changes = append(changes, c) })}})
	h.clientPasses(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	h.serverPasses(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"weather-server","version":"2"}}}`)
	list := func(id, result string) {
		h.clientPasses(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`)
		h.serverPasses(`{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}`)
	}
	list("1", toolsList)
	list("2", toolsList)
	changed := strings.Replace(toolsList, `"enum":["c","f"]`, `"enum":["c","f","k"],"description":"secret words"`, 1)
	changed = strings.Replace(changed, `{"name":"broken",`, `{"name":"station",`, 1)
	list("3", changed)
	list("4", changed)
	if len(changes) != 1 {
		t.Fatalf("%d changes told, want 1: %+v", len(changes), changes)
	}
	c := changes[0]
	if c.Server != "weather-server" || strings.Join(c.Added, ",") != "station" || strings.Join(c.Removed, ",") != "broken" || len(c.Changed) != 1 {
		t.Fatalf("change %+v", c)
	}
	w := c.Changed[0]
	if w.Tool != "weather" || w.From == w.To || len(w.From) != 12 ||
		strings.Join(w.Paths, " ") != "/inputSchema/properties/units/description /inputSchema/properties/units/enum" {
		t.Errorf("weather's change %+v", w)
	}
	var line struct {
		Msg, Level, Server string
		Added, Removed     []string
		Changed            []struct{ Tool, From, To string }
	}
	if err := json.Unmarshal(logged.Bytes(), &line); err != nil || line.Msg != "mcpvalidate: the server's tool schemas changed" || line.Level != "WARN" ||
		line.Server != "weather-server" || len(line.Added) != 1 || len(line.Changed) != 1 || line.Changed[0].To != w.To {
		t.Errorf("logged %s (%v)", logged.String(), err)
	}
	if strings.Contains(logged.String(), "secret") || strings.Contains(logged.String(), `"k"`) {
		t.Errorf("the log line holds a schema's text: %s", logged.String())
	}
}

// TestSchemaChangesByCaller: over HTTP, clients of a server that issues no session ids
// and serves other tools for other toolsets are compared each with itself: their lists
// differing tells nothing, a client's own list changing does.
func TestSchemaChangesByCaller(t *testing.T) {
	var changes []guard.SchemaChange
	loose := looseList
	upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		json.NewDecoder(r.Body).Decode(&m)
		w.Header().Set("Content-Type", "application/json")
		list := toolsList
		if r.Header.Get("X-Mcp-Toolsets") == "loose" {
			list = loose
		}
		w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + list + `}`))
	})
	f, _ := memoryFront(t, upstream, Options{Guard: []guard.Option{guard.WithSchemaChanges(func(c guard.SchemaChange) { changes = append(changes, c) })}})
	list := func(toolset string) {
		req := localRequest("POST", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Mcp-Toolsets", toolset)
		f.ServeHTTP(httptest.NewRecorder(), req)
	}
	for range 3 {
		list("strict")
		list("loose")
	}
	if len(changes) != 0 {
		t.Fatalf("lists of two toolsets told as changes: %+v", changes)
	}
	loose = `{"tools":[{"name":"weather","inputSchema":{"type":"object"}}]}`
	list("loose")
	if len(changes) != 1 || strings.Join(changes[0].Removed, ",") != "sum" {
		t.Errorf("changes %+v, want sum removed", changes)
	}
}
