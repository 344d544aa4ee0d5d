package guard

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"unique"
)

// A SchemaChange is a change of the tools a server lists, as an adapter saw it: the
// tools added and removed, and those whose schemas changed, against the list the adapter
// saw before for the same server (and, behind a proxy, the same caller). Models called
// the old schemas; a change is the first suspect when refusals move.
type SchemaChange struct {
	Server  string // the server's name, when the adapter knows it (Call.Server)
	Added   []string
	Removed []string
	Changed []ToolChange
}

// A ToolChange is one tool whose inputSchema or outputSchema changed.
type ToolChange struct {
	Tool     string
	From, To string // the content hashes of its schemas before and after (ToolHash)
	// Paths are where the schemas differ, as JSON Pointers under "/inputSchema" or
	// "/outputSchema" (a keyword's value, or a member added or removed), at most
	// maxChangePaths of them: never the values.
	Paths []string
}

// maxChangePaths bounds the paths a ToolChange lists.
const maxChangePaths = 8

// WithSchemaChanges calls fn with each change of a server's tools that an adapter tells
// the guard of (Guard.SchemaChanged), on the adapter's goroutine. fn must be quick.
func WithSchemaChanges(fn func(SchemaChange)) Option {
	return guardOption(func(c *config) { c.changes = append(c.changes, fn) })
}

// SchemaChanged tells the guard's loggers and observers of c.
func (g *Guard) SchemaChanged(c SchemaChange) {
	for _, fn := range g.cfg.changes {
		func() {
			defer func() { _ = recover() }() // an observer's bug must not stop the adapter
			fn(c)
		}()
	}
}

// Registered tells the guard the text a tool of the server's own now has for its
// inputSchema, or its outputSchema (output), as an adapter in the server's process binds
// it: a text other than the one before is told as a SchemaChange of the tool. It costs
// nothing without a logger or an observer of changes.
func (g *Guard) Registered(tool string, output bool, text []byte) {
	if len(g.cfg.changes) == 0 {
		return
	}
	r := &g.registered
	r.mu.Lock()
	t, known := r.tools[tool]
	if !known {
		if r.tools == nil {
			r.tools = map[string]*registeredTool{}
		}
		if len(r.tools) >= maxRegistered {
			r.mu.Unlock()
			return
		}
		t = &registeredTool{}
		r.tools[tool] = t
	}
	before := *t
	side := &t.in
	if output {
		side = &t.out
	}
	h := unique.Make(string(text))
	if *side == h {
		r.mu.Unlock()
		return
	}
	*side = h
	after := *t
	r.mu.Unlock()
	if before.in == (unique.Handle[string]{}) && !output || before.out == (unique.Handle[string]{}) && output {
		return // the first text the tool is seen with
	}
	fromIn, fromOut := before.texts()
	toIn, toOut := after.texts()
	g.SchemaChanged(SchemaChange{Changed: []ToolChange{{Tool: tool, From: ToolHash(fromIn, fromOut), To: ToolHash(toIn, toOut),
		Paths: SchemaPaths(fromIn, fromOut, toIn, toOut)}}})
}

// registered are the schema texts of the tools the guard's adapters last bound, by name.
type registered struct {
	mu    sync.Mutex
	tools map[string]*registeredTool
}

// maxRegistered bounds the tools whose schemas Registered follows.
const maxRegistered = 4096

type registeredTool struct{ in, out unique.Handle[string] }

func (t registeredTool) texts() (in, out []byte) {
	if t.in != (unique.Handle[string]{}) {
		in = []byte(t.in.Value())
	}
	if t.out != (unique.Handle[string]{}) {
		out = []byte(t.out.Value())
	}
	return in, out
}

// ToolHash is the content hash of a tool's schemas, inputSchema's and outputSchema's texts
// (out nil when it declares none), as a SchemaChange gives it: 12 hex digits of SHA-256.
func ToolHash(in, out []byte) string {
	d := sha256.New()
	d.Write([]byte(strconv.Itoa(len(in))))
	d.Write([]byte{0})
	d.Write(in)
	d.Write(out)
	return hex.EncodeToString(d.Sum(nil)[:6])
}

// SchemaPaths returns where two tools' schemas differ, as JSON Pointers, at most
// maxChangePaths of them; none when either is not JSON.
func SchemaPaths(fromIn, fromOut, toIn, toOut []byte) []string {
	var paths []string
	for _, s := range []struct {
		at       string
		from, to []byte
	}{{"/inputSchema", fromIn, toIn}, {"/outputSchema", fromOut, toOut}} {
		if bytes.Equal(s.from, s.to) {
			continue
		}
		var a, b any
		if (s.from != nil && json.Unmarshal(s.from, &a) != nil) || (s.to != nil && json.Unmarshal(s.to, &b) != nil) {
			continue
		}
		paths = diffPaths(a, b, s.at, paths)
	}
	return paths
}

// diffPaths appends where a and b differ, under the pointer at, up to maxChangePaths.
func diffPaths(a, b any, at string, paths []string) []string {
	if len(paths) >= maxChangePaths {
		return paths
	}
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok {
			break
		}
		names := make([]string, 0, len(a)+len(b))
		for name := range a {
			names = append(names, name)
		}
		for name := range b {
			if _, ok := a[name]; !ok {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		for _, name := range names {
			paths = diffPaths(a[name], b[name], at+"/"+pointerToken.Replace(name), paths)
		}
		return paths
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			break
		}
		for i := range a {
			paths = diffPaths(a[i], b[i], at+"/"+strconv.Itoa(i), paths)
		}
		return paths
	}
	if !equalJSON(a, b) {
		paths = append(paths, at)
	}
	return paths
}

func equalJSON(a, b any) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}

// maxLoggedTools bounds the tool names a schema change's log line lists of each sort.
const maxLoggedTools = 32

// logChange logs c to l: the tools added, removed and changed, bounded, names as messages
// show them, with hashes and paths, never a schema's text.
func logChange(l *slog.Logger, c SchemaChange) {
	args := []any{}
	if c.Server != "" {
		args = append(args, "server", visibleText(c.Server))
	}
	names := func(key string, tools []string) {
		if len(tools) == 0 {
			return
		}
		shown := make([]string, 0, min(len(tools), maxLoggedTools))
		for _, t := range tools[:min(len(tools), maxLoggedTools)] {
			shown = append(shown, visibleText(t))
		}
		args = append(args, key, shown)
		if len(tools) > maxLoggedTools {
			args = append(args, key+"_more", len(tools)-maxLoggedTools)
		}
	}
	names("added", c.Added)
	names("removed", c.Removed)
	if len(c.Changed) > 0 {
		type changed struct {
			Tool  string   `json:"tool"`
			From  string   `json:"from"`
			To    string   `json:"to"`
			Paths []string `json:"paths"`
		}
		out := make([]changed, 0, min(len(c.Changed), maxLoggedTools))
		for _, t := range c.Changed[:min(len(c.Changed), maxLoggedTools)] {
			paths := make([]string, 0, len(t.Paths))
			for _, p := range t.Paths {
				paths = append(paths, visibleText(p))
			}
			out = append(out, changed{Tool: visibleText(t.Tool), From: t.From, To: t.To, Paths: paths})
		}
		args = append(args, "changed", out)
		if len(c.Changed) > maxLoggedTools {
			args = append(args, "changed_more", len(c.Changed)-maxLoggedTools)
		}
	}
	l.Log(context.Background(), slog.LevelWarn, "mcpvalidate: the server's tool schemas changed", args...)
}
