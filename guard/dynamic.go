package guard

import (
	"encoding/binary"
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
	id   uint32 // its number in the document, which a scope's key lists
	name string
	ptr  string
	v    any
}

// A scope is what the resources entered on the way to a schema bind: each dynamic anchor
// name to the anchor of the outermost resource that defines it. Schemas are compiled once
// per scope, under a key made of the scope's number, so that a key's length does not grow
// with the bindings.
type scope struct {
	id       int // 0 when there are no bindings
	bindings map[string]dynamicAnchor
}

// An entry is a resource entered from a scope: each is worked out once.
type entry struct {
	from *scope
	res  string
}

// Compiling per scope multiplies a document's schemas by the scopes that reach each: the
// second pass may spend at most scopeGrowth times what the first pass's nodes hold, and
// scopeFloor more, so that its time and memory stay proportional to the document's.
const (
	scopeGrowth = 4
	scopeFloor  = 256 << 10
)

// scopeEntryCost is the bytes a scope spends on one binding: its map's entry, and its
// number in the key.
const scopeEntryCost = 128

// enter returns the scope s extended by the resource at pointer res: its dynamic anchors
// bind the names that no outer resource binds.
func (c *compiler) enter(s *scope, res string) *scope {
	if known, ok := c.entries[entry{s, res}]; ok {
		return known
	}
	sc := c.extend(s, res)
	c.entries[entry{s, res}] = sc
	return sc
}

// extend makes or finds the scope s extended by the resource at res, and counts the work.
func (c *compiler) extend(s *scope, res string) *scope {
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
	c.work += scopeEntryCost * int64(len(bindings))
	ids := make([]uint32, 0, len(bindings))
	for _, a := range bindings {
		ids = append(ids, a.id)
	}
	slices.Sort(ids)
	key := make([]byte, 0, 4*len(ids))
	for _, id := range ids {
		key = binary.LittleEndian.AppendUint32(key, id)
	}
	if known := c.scopes[string(key)]; known != nil {
		return known
	}
	sc := &scope{id: len(c.scopes) + 1, bindings: bindings}
	c.scopes[string(key)] = sc
	return sc
}

// nodeKey is the key of the schema at ptr compiled in the current scope.
func (c *compiler) nodeKey(ptr string) string {
	if c.scope.id == 0 {
		return ptr
	}
	return ptr + "\x00" + strconv.Itoa(c.scope.id)
}

func (c *compiler) newAnchor(name, ptr string, v any) dynamicAnchor {
	c.anchorsSeen++
	return dynamicAnchor{uint32(c.anchorsSeen), name, ptr, v}
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
			c.found[c.resource] = append(c.found[c.resource], c.newAnchor("", ptr, o))
		}
		return nil
	}
	name, ok := v.(string)
	if !ok || !c.d.anchor.MatchString(name) {
		return schemaErr(at, "$dynamicAnchor must be a name matching %s", c.d.anchor)
	}
	c.found[c.resource] = append(c.found[c.resource], c.newAnchor(name, ptr, o))
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
	for !c.resourceAt[ptr] {
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return ""
		}
		ptr = ptr[:i]
	}
	return ptr
}
