package proxy

import (
	"slices"
	"sync"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// drift remembers, for each caller (the headers that may select its tools, over HTTP;
// one over stdio), the last whole tool list the proxy learned of the server, and tells the
// guard when the next differs (guard.SchemaChange): the tools added, removed and changed.
// Callers of different tools are compared each with itself, never with each other.
type drift struct {
	mu   sync.Mutex
	last map[string]map[string]*tool
}

// maxCallers bounds the callers drift remembers a list of; past it, one is forgotten,
// whose next list is then not compared.
const maxCallers = 1024

// learned compares tools, a whole list learned for caller, with the one before.
func (p *Proxy) learned(caller string, tools map[string]*tool) {
	d := &p.drift
	d.mu.Lock()
	before, known := d.last[caller]
	if known && sameTools(before, tools) {
		d.mu.Unlock()
		return
	}
	if d.last == nil {
		d.last = map[string]map[string]*tool{}
	}
	if !known && len(d.last) >= maxCallers {
		for k := range d.last {
			delete(d.last, k)
			break
		}
	}
	d.last[caller] = tools
	d.mu.Unlock()
	if known {
		p.guard.SchemaChanged(p.change(before, tools))
	}
}

// change is what changed from the tools before to those after.
func (p *Proxy) change(before, after map[string]*tool) guard.SchemaChange {
	c := guard.SchemaChange{Server: p.serverName()}
	for name, t := range after {
		switch u := before[name]; {
		case u == nil:
			c.Added = append(c.Added, name)
		case !u.same(t):
			fromIn, fromOut := u.texts()
			toIn, toOut := t.texts()
			c.Changed = append(c.Changed, guard.ToolChange{Tool: name, From: guard.ToolHash(fromIn, fromOut), To: guard.ToolHash(toIn, toOut),
				Paths: guard.SchemaPaths(fromIn, fromOut, toIn, toOut)})
		}
	}
	for name := range before {
		if after[name] == nil {
			c.Removed = append(c.Removed, name)
		}
	}
	slices.Sort(c.Added)
	slices.Sort(c.Removed)
	slices.SortFunc(c.Changed, func(a, b guard.ToolChange) int {
		if a.Tool < b.Tool {
			return -1
		}
		if a.Tool > b.Tool {
			return 1
		}
		return 0
	})
	return c
}

// texts returns the texts of t's schemas, out nil when it declares none; a schema the
// proxy could not read has none.
func (t *tool) texts() (in, out []byte) {
	if t.in.err == nil {
		in = []byte(t.in.key.Value())
	}
	if t.out != nil && t.out.err == nil {
		out = []byte(t.out.key.Value())
	}
	return in, out
}
