package guard

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"testing"
)

func TestSchemaPaths(t *testing.T) {
	for _, c := range []struct {
		name                         string
		fromIn, fromOut, toIn, toOut string
		want                         string
	}{
		{"the same", `{"type":"object"}`, "", `{"type":"object"}`, "", ""},
		{"a keyword's value", `{"properties":{"u":{"enum":["c","f"]}}}`, "", `{"properties":{"u":{"enum":["c","f","k"]}}}`, "", "/inputSchema/properties/u/enum"},
		{"a member added and one removed", `{"a":1,"b":2}`, "", `{"b":2,"c":3}`, "", "/inputSchema/a /inputSchema/c"},
		{"an escaped name", `{"properties":{"a/b~c":{}}}`, "", `{"properties":{"a/b~c":{"type":"string"}}}`, "", "/inputSchema/properties/a~1b~0c/type"},
		{"an output schema declared", `{}`, "", `{}`, `{"type":"object"}`, "/outputSchema"},
		{"an array's element", `{"required":["a","b"]}`, "", `{"required":["a","c"]}`, "", "/inputSchema/required/1"},
		{"not JSON", `{`, "", `{}`, "", ""},
		{"many", `{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"j":1}`, "", `{}`, "",
			"/inputSchema/a /inputSchema/b /inputSchema/c /inputSchema/d /inputSchema/e /inputSchema/f /inputSchema/g /inputSchema/h"},
	} {
		bytesOf := func(s string) []byte {
			if s == "" {
				return nil
			}
			return []byte(s)
		}
		got := strings.Join(SchemaPaths(bytesOf(c.fromIn), bytesOf(c.fromOut), bytesOf(c.toIn), bytesOf(c.toOut)), " ")
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if ToolHash([]byte(`{}`), nil) == ToolHash([]byte(`{}`), []byte(`{}`)) || ToolHash([]byte(`{"a":1}`), nil) == ToolHash([]byte(`{"a":`), []byte(`1}`)) {
		t.Error("ToolHash gives two tools of other schemas the same hash")
	}
}

// TestSchemaChangeLogged: a change is logged at Warn with the tools bounded, names shown
// as messages show them, and no schema's text.
func TestSchemaChangeLogged(t *testing.T) {
	var log bytes.Buffer
	g := New(WithLogger(slog.New(slog.NewJSONHandler(&log, nil))))
	c := SchemaChange{Server: "s", Changed: []ToolChange{{Tool: "weather", From: "a", To: "b", Paths: []string{"/inputSchema/enum"}}}}
	for i := range 40 {
		c.Added = append(c.Added, "tool"+strconv.Itoa(i))
	}
	c.Removed = []string{strings.Repeat("x", 10000)}
	g.SchemaChanged(c)
	var line struct {
		Level, Msg, Server string
		Added              []string
		AddedMore          int `json:"added_more"`
		Removed            []string
		Changed            []struct {
			Tool, From, To string
			Paths          []string
		}
	}
	if err := json.Unmarshal(log.Bytes(), &line); err != nil {
		t.Fatal(err)
	}
	if line.Level != "WARN" || line.Server != "s" || len(line.Added) != maxLoggedTools || line.AddedMore != 8 || len(line.Removed) != 1 ||
		len(line.Removed[0]) > 200 || len(line.Changed) != 1 || line.Changed[0].To != "b" || line.Changed[0].Paths[0] != "/inputSchema/enum" {
		t.Errorf("logged %.500s", log.String())
	}
}
