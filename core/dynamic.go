package core

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// $dynamicRef (2020-12) and $recursiveRef (2019-09) point at a schema that depends on how
// validation reached them: when their static target is a dynamic anchor, the outermost
// schema resource entered on the way that defines the same anchor takes its place. The
// compiler follows every way there is, so it resolves them once: each schema is compiled
// once per scope (what the resources entered on the way bind), and validation follows
// plain pointers, remembered results and all.

// A dynamicAnchor is a schema that $dynamicAnchor names, or, under the name "", the root
// of a resource with $recursiveAnchor: true.
type dynamicAnchor struct {
	name string
	ptr  string
	v    any
}

// A scope is what the resources entered on the way to a schema bind: each dynamic anchor
// name to the anchor of the outermost resource that defines it.
type scope struct {
	key      string // the bindings written out; "" when there are none
	bindings map[string]dynamicAnchor
}

// maxScopedNodes bounds the schemas that compiling per scope makes of one document.
const maxScopedNodes = 20_000

// enter returns the scope s extended by the resource at pointer res: its dynamic anchors
// bind the names that no outer resource binds.
func (c *compiler) enter(s *scope, res string) *scope {
	var added []dynamicAnchor
	for _, a := range c.dynamic[res] {
		if _, bound := s.bindings[a.name]; !bound {
			added = append(added, a)
		}
	}
	if len(added) == 0 {
		return s
	}
	bindings := maps.Clone(s.bindings)
	if bindings == nil {
		bindings = map[string]dynamicAnchor{}
	}
	for _, a := range added {
		bindings[a.name] = a
	}
	var key strings.Builder
	for _, name := range slices.Sorted(maps.Keys(bindings)) {
		key.WriteString(strconv.Quote(name) + bindings[name].ptr + "\x00")
	}
	if known := c.scopes[key.String()]; known != nil {
		return known
	}
	sc := &scope{key: key.String(), bindings: bindings}
	c.scopes[sc.key] = sc
	return sc
}

// dynamicAnchor records the $dynamicAnchor or $recursiveAnchor v of the schema o at ptr.
func (c *compiler) dynamicAnchor(keyword string, v any, o *schemaObject, ptr string) error {
	at := ptr + "/" + keyword
	if keyword == "$recursiveAnchor" {
		b, ok := v.(bool)
		if !ok {
			return schemaErr(at, "$recursiveAnchor must be a boolean")
		}
		if b && ptr == c.resource { // elsewhere than at a resource's root it means nothing
			c.found[c.resource] = append(c.found[c.resource], dynamicAnchor{"", ptr, o})
		}
		return nil
	}
	name, ok := v.(string)
	if !ok || !c.d.anchor.MatchString(name) {
		return schemaErr(at, "$dynamicAnchor must be a name matching %s", c.d.anchor)
	}
	c.found[c.resource] = append(c.found[c.resource], dynamicAnchor{name, ptr, o})
	return c.addAnchor(name, o, ptr, at)
}

// dynamicTarget returns what the $dynamicRef or $recursiveRef p leads to, given its static
// target at ptr: when that target is itself a dynamic anchor of the name p asks for, the
// anchor that p's scope binds to the name, if any.
func (c *compiler) dynamicTarget(p pendingRef, ptr string, v any) (string, any) {
	o, _ := v.(*schemaObject)
	if o == nil {
		return ptr, v
	}
	name := ""
	if p.keyword == "$dynamicRef" {
		u, _ := url.Parse(p.ref) // target parsed it already
		a, _ := o.get("$dynamicAnchor")
		if s, _ := a.(string); u.Fragment == "" || s != u.Fragment {
			return ptr, v
		}
		name = u.Fragment
	} else if a, _ := o.get("$recursiveAnchor"); a != true {
		return ptr, v
	}
	if a, ok := p.scope.bindings[name]; ok {
		return a.ptr, a.v
	}
	return ptr, v
}

// resourceOf returns the pointer of the innermost resource that holds the schema at ptr.
func (c *compiler) resourceOf(ptr string) string {
	best := ""
	for _, r := range c.resources {
		if len(r.ptr) > len(best) && (ptr == r.ptr || strings.HasPrefix(ptr, r.ptr+"/")) {
			best = r.ptr
		}
	}
	return best
}
