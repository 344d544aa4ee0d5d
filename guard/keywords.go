package guard

import (
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strconv"
)

// Reading a schema object's keywords into its node: keywords fall in groups, each read by
// one method, and a keyword the dialect does not define is ignored, as unknown ones are.

// reading is one schema object being read into its node.
type reading struct {
	n      *node
	o      *schemaObject
	ptr    string
	hasRef bool
	// refs: a $ref, $dynamicRef or $recursiveRef applies (see derive); dynamicRef is the
	// schema one of the last two leads to when a $ref stands beside it.
	refs       bool
	dynamicRef *node
	exclusive  [2]bool // draft-04: exclusiveMinimum and exclusiveMaximum, booleans
}

type keywordGroup uint8

const (
	unknownKeyword  keywordGroup = iota
	valueKeyword                 // on any value: type, enum, const
	stringKeyword                // minLength, maxLength, pattern, format
	numberKeyword                // the bounds and multipleOf
	objectKeyword                // on members and names
	arrayKeyword                 // on items
	inPlaceKeyword               // the applicators: references, allOf, anyOf, oneOf, not, if
	identityKeyword              // anchors and $schema
)

var keywordGroups = map[string]keywordGroup{
	"type": valueKeyword, "enum": valueKeyword, "const": valueKeyword,
	"minLength": stringKeyword, "maxLength": stringKeyword, "pattern": stringKeyword, "format": stringKeyword,
	"minimum": numberKeyword, "maximum": numberKeyword, "exclusiveMinimum": numberKeyword,
	"exclusiveMaximum": numberKeyword, "multipleOf": numberKeyword,
	"properties": objectKeyword, "required": objectKeyword, "dependentRequired": objectKeyword,
	"dependentSchemas": objectKeyword, "dependencies": objectKeyword, "patternProperties": objectKeyword,
	"propertyNames": objectKeyword, "additionalProperties": objectKeyword, "minProperties": objectKeyword,
	"maxProperties": objectKeyword, "unevaluatedProperties": objectKeyword,
	"prefixItems": arrayKeyword, "items": arrayKeyword, "minItems": arrayKeyword, "maxItems": arrayKeyword,
	"contains": arrayKeyword, "minContains": arrayKeyword, "maxContains": arrayKeyword,
	"uniqueItems": arrayKeyword, "unevaluatedItems": arrayKeyword,
	"$ref": inPlaceKeyword, "$dynamicRef": inPlaceKeyword, "$recursiveRef": inPlaceKeyword,
	"allOf": inPlaceKeyword, "anyOf": inPlaceKeyword, "oneOf": inPlaceKeyword, "not": inPlaceKeyword,
	"if": inPlaceKeyword, "then": inPlaceKeyword, "else": inPlaceKeyword,
	"$anchor": identityKeyword, "$dynamicAnchor": identityKeyword, "$recursiveAnchor": identityKeyword,
	"$schema": identityKeyword,
}

// A keywordSet holds keywords, one bit each (keywordBit).
type keywordSet uint64

// keywordBits numbers the keywords of keywordGroups in alphabetical order.
var keywordBits = func() map[string]keywordSet {
	bits := map[string]keywordSet{}
	for i, k := range slices.Sorted(maps.Keys(keywordGroups)) {
		bits[k] = 1 << i
	}
	return bits
}()

func keywordsOf(names ...string) keywordSet {
	var set keywordSet
	for _, k := range names {
		set |= keywordBits[k]
	}
	return set
}

// The keywords that look at a string, and at a number: a node with none of them takes any
// value of that type its types allow.
var (
	stringKeywords = keywordsOf("enum", "const", "minLength", "maxLength", "pattern", "format")
	numberKeywords = keywordsOf("enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
)

// knows reports whether the dialect defines the keyword k (of those the groups list).
func (d *dialect) knows(k string) bool {
	switch k {
	case "const", "contains", "propertyNames":
		return d.since6
	case "dependentRequired", "dependentSchemas", "minContains", "maxContains", "$anchor",
		"unevaluatedProperties", "unevaluatedItems":
		return d.since2019
	case "prefixItems":
		return !d.tupleItems
	case "if", "then", "else":
		return d.conditionals
	case "$dynamicRef", "$dynamicAnchor":
		return d.dynamicRefs
	case "$recursiveRef", "$recursiveAnchor":
		return d.recursiveRefs
	}
	return true
}

// keywords reads the schema object o at ptr into n.
func (c *compiler) keywords(n *node, o *schemaObject, ptr string) error {
	ref, hasRef := o.get("$ref")
	if id, ok := o.get(c.d.id); ok && !(hasRef && c.d.refOverrides) {
		base, err := c.identify(id, o, ptr)
		if err != nil {
			return err
		}
		defer func(outer *url.URL, res string, sc *scope) { c.base, c.resource, c.scope = outer, res, sc }(c.base, c.resource, c.scope)
		if base != c.base {
			c.resource, c.scope = ptr, c.enter(c.scope, ptr)
		}
		c.base = base
	}
	if hasRef && c.d.refOverrides {
		if err := c.addRef(n, ref, ptr, "$ref"); err != nil {
			return err
		}
		n.refOnly, n.applicators, n.keywords = true, true, keywordsOf("$ref")
		return c.defs(o, ptr)
	}
	r := &reading{n: n, o: o, ptr: ptr, hasRef: hasRef}
	for i, k := range o.keys {
		group := keywordGroups[k]
		if group == unknownKeyword || !c.d.knows(k) {
			continue
		}
		v, at := o.vals[i], ptr+"/"+escapePointer(k)
		var err error
		switch group {
		case valueKeyword:
			err = c.valueKeyword(r, k, v, at)
		case stringKeyword:
			err = c.stringKeyword(r, k, v, at)
		case numberKeyword:
			err = c.numberKeyword(r, k, v, at)
		case objectKeyword:
			err = c.objectKeyword(r, k, v, at)
		case arrayKeyword:
			err = c.arrayKeyword(r, k, v, at)
		case inPlaceKeyword:
			err = c.inPlaceKeyword(r, k, v, at)
		case identityKeyword:
			err = c.identityKeyword(r, k, v, at)
		}
		if err != nil {
			return err
		}
		if k != "uniqueItems" || v == true {
			n.keywords |= keywordBits[k]
		}
	}
	r.finish()
	return c.defs(o, ptr)
}

// finish sets what follows from the keywords once they are all read.
func (r *reading) finish() {
	n := r.n
	if r.dynamicRef != nil {
		n.allOf = append(n.allOf, r.dynamicRef)
	}
	if r.exclusive[0] && n.minimum != nil {
		n.exclusiveMinimum, n.minimum = n.minimum, nil
	}
	if r.exclusive[1] && n.maximum != nil {
		n.exclusiveMaximum, n.maximum = n.maximum, nil
	}
	for _, kb := range [...]struct {
		k string
		b *bound
	}{{"minimum", n.minimum}, {"maximum", n.maximum}, {"exclusiveMinimum", n.exclusiveMinimum}, {"exclusiveMaximum", n.exclusiveMaximum}} {
		if kb.b == nil { // draft-04's boolean, or the bound it moved
			n.keywords &^= keywordBits[kb.k]
		} else {
			n.keywords |= keywordBits[kb.k]
		}
	}
	if n.ifn != nil && n.then == nil && n.elsen == nil {
		n.bareIf, n.ifn = n.ifn, nil
	}
	if n.ifn == nil {
		n.then, n.elsen = nil, nil
		n.keywords &^= keywordsOf("then", "else")
	}
	if n.checkFormat == nil {
		n.keywords &^= keywordsOf("format") // an annotation
	}
	n.derive(r.refs)
}

func (c *compiler) valueKeyword(r *reading, k string, v any, at string) error {
	n := r.n
	switch k {
	case "type":
		return c.types(n, v, at)
	case "enum":
		arr, ok := v.([]any)
		if !ok {
			return schemaErr(at, "enum must be an array")
		}
		n.enum = newValueSet(arr, c.values)
		for _, e := range arr {
			n.enumTexts = append(n.enumTexts, jsonText(e))
		}
	default:
		n.constant = newValueSet([]any{v}, c.values)
		n.constantText = jsonText(v)
	}
	return nil
}

func (c *compiler) stringKeyword(r *reading, k string, v any, at string) (err error) {
	n := r.n
	switch k {
	case "minLength":
		n.minLength, err = count(v, at)
	case "maxLength":
		n.maxLength, err = count(v, at)
	case "pattern":
		s, ok := v.(string)
		if !ok {
			return schemaErr(at, "pattern must be a string")
		}
		if n.pattern, err = compilePattern(s); err != nil {
			return schemaErr(at, "pattern %q does not compile as a Go regular expression: %v", s, err)
		}
	default:
		s, ok := v.(string)
		if !ok {
			return schemaErr(at, "format must be a string")
		}
		if c.cfg.assertFormat || c.d.formatAsserts {
			n.format, n.checkFormat = s, formatChecker(s)
		}
	}
	return err
}

func (c *compiler) numberKeyword(r *reading, k string, v any, at string) error {
	n := r.n
	if c.d.boolExclusive && (k == "exclusiveMinimum" || k == "exclusiveMaximum") {
		b, ok := v.(bool)
		if !ok {
			return schemaErr(at, "%s must be a boolean in %s", k, c.d.name)
		}
		if k == "exclusiveMaximum" {
			r.exclusive[1] = b
		} else {
			r.exclusive[0] = b
		}
		return nil
	}
	num, ok := v.(json.Number)
	if !ok {
		return schemaErr(at, "%s must be a number", k)
	}
	b := newBound(num.String())
	switch k {
	case "minimum":
		n.minimum = b
	case "maximum":
		n.maximum = b
	case "exclusiveMinimum":
		n.exclusiveMinimum = b
	case "exclusiveMaximum":
		n.exclusiveMaximum = b
	default:
		if b.num.isZero() || b.num.neg {
			return schemaErr(at, "multipleOf must be greater than 0")
		}
		b.asDivisor()
		n.multipleOf = b
	}
	return nil
}

func (c *compiler) objectKeyword(r *reading, k string, v any, at string) (err error) {
	n := r.n
	switch k {
	case "properties":
		return c.properties(n, v, at)
	case "required":
		names, err := stringList(v, at)
		for _, name := range names {
			n.required = append(n.required, n.slot(name))
		}
		n.objectWork = true
		return err
	case "dependentRequired":
		return c.dependentRequired(n, v, at, k)
	case "dependentSchemas":
		return c.dependentSchemas(n, v, at)
	case "dependencies":
		return c.dependencies(n, v, at)
	case "patternProperties":
		return c.patternProperties(n, v, at)
	case "propertyNames":
		n.names, err = c.schema(v, at)
	case "additionalProperties":
		n.additional, err = c.schemaOrBool(v, at)
	case "minProperties":
		n.minProps, err = count(v, at)
	case "maxProperties":
		n.maxProps, err = count(v, at)
	default:
		n.unevalProps, err = c.schema(v, at)
		n.applicators = true
		return err
	}
	n.objectWork = true
	return err
}

func (c *compiler) arrayKeyword(r *reading, k string, v any, at string) (err error) {
	n := r.n
	switch k {
	case "prefixItems":
		n.prefix, err = c.schemaList(v, at)
	case "items":
		if arr, ok := v.([]any); ok && c.d.tupleItems {
			n.prefix, err = c.schemaList(arr, at)
			if extra, ok := r.o.get("additionalItems"); ok && err == nil {
				n.items, err = c.schemaOrBool(extra, r.ptr+"/additionalItems")
				n.extraItems = "additionalItems"
			}
		} else {
			n.items, err = c.schema(v, at)
		}
	case "minItems":
		n.minItems, err = count(v, at)
	case "maxItems":
		n.maxItems, err = count(v, at)
	case "contains":
		n.contains, err = c.schema(v, at)
	case "minContains":
		n.minContains, err = count(v, at)
		return err
	case "maxContains":
		n.maxContains, err = count(v, at)
		return err
	case "uniqueItems":
		b, ok := v.(bool)
		if !ok {
			return schemaErr(at, "uniqueItems must be a boolean")
		}
		n.uniqueItem = b
		n.arrayWork = n.arrayWork || b
		return nil
	default:
		n.unevalItems, err = c.schema(v, at)
		n.containsEvaluates, n.applicators = !c.d.tupleItems, true
		return err
	}
	n.arrayWork = true
	return err
}

func (c *compiler) inPlaceKeyword(r *reading, k string, v any, at string) (err error) {
	n := r.n
	n.applicators = k != "then" && k != "else" || n.applicators // they apply only under if
	switch k {
	case "$ref":
		r.refs = true
		return c.addRef(n, v, r.ptr, k)
	case "$dynamicRef", "$recursiveRef":
		r.refs = true
		to := n
		if r.hasRef {
			to = newNode(r.ptr)
			to.refOnly, to.applicators = true, true
			r.dynamicRef = to
		}
		return c.addRef(to, v, r.ptr, k)
	case "allOf":
		list, err := c.schemaList(v, at)
		n.allOf = append(n.allOf, list...) // after those of dependentSchemas
		return err
	case "anyOf":
		n.anyOf, err = c.schemaList(v, at)
	case "oneOf":
		n.oneOf, err = c.schemaList(v, at)
	case "not":
		n.not, err = c.schema(v, at)
	case "if":
		n.ifn, err = c.schema(v, at)
	case "then":
		n.then, err = c.schema(v, at)
	default:
		n.elsen, err = c.schema(v, at)
	}
	return err
}

func (c *compiler) identityKeyword(r *reading, k string, v any, at string) error {
	switch k {
	case "$anchor":
		return c.anchor(v, r.o, r.ptr)
	case "$dynamicAnchor", "$recursiveAnchor":
		return c.dynamicAnchor(k, v, r.o, r.ptr)
	}
	if _, ok := v.(string); !ok {
		return schemaErr(at, "$schema must be a string")
	}
	return nil
}

// schemaOrBool compiles the value of additionalProperties or additionalItems, which may be
// a boolean in every draft.
func (c *compiler) schemaOrBool(v any, ptr string) (*node, error) {
	_, c.boolOK = v.(bool)
	n, err := c.schema(v, ptr)
	c.boolOK = false
	return n, err
}

func (c *compiler) types(n *node, v any, ptr string) error {
	var names []string
	switch v := v.(type) {
	case string:
		names = []string{v}
	case []any:
		for _, t := range v {
			s, ok := t.(string)
			if !ok {
				return schemaErr(ptr, "type must list type names")
			}
			names = append(names, s)
		}
	default:
		return schemaErr(ptr, "type must be a type name or a list of them")
	}
	for _, name := range names {
		t, ok := typeByName[name]
		if !ok {
			return schemaErr(ptr, "unknown type %q (known: null, boolean, object, array, number, integer, string)", name)
		}
		if n.types&t != 0 {
			return schemaErr(ptr, "type %q is listed twice", name)
		}
		n.types |= t
	}
	n.typeNames = names
	return nil
}

func (c *compiler) properties(n *node, v any, ptr string) error {
	o, ok := v.(*schemaObject)
	if !ok {
		return schemaErr(ptr, "properties must be an object")
	}
	for i, name := range o.keys {
		sub, err := c.schema(o.vals[i], ptr+"/"+escapePointer(name))
		if err != nil {
			return err
		}
		n.props = append(n.props, newProp(name, sub, n.slot(name)))
	}
	n.objectWork = true
	return nil
}

// slot returns the presence slot of a member name, adding it when new.
func (n *node) slot(name string) int {
	if i, ok := n.slotIndex[name]; ok {
		return i
	}
	if n.slotIndex == nil {
		n.slotIndex = map[string]int{}
	}
	n.slotIndex[name] = len(n.slots)
	n.slots = append(n.slots, name)
	return len(n.slots) - 1
}

func (c *compiler) dependentRequired(n *node, v any, ptr, keyword string) error {
	o, ok := v.(*schemaObject)
	if !ok {
		return schemaErr(ptr, "%s must be an object", keyword)
	}
	for i, name := range o.keys {
		if err := c.requires(n, name, o.vals[i], ptr+"/"+escapePointer(name), keyword); err != nil {
			return err
		}
	}
	return nil
}

// requires adds the dependency of keyword that the member name requires the names listed
// in v.
func (c *compiler) requires(n *node, name string, v any, ptr, keyword string) error {
	names, err := stringList(v, ptr)
	if err != nil {
		return err
	}
	d := dependent{slot: n.slot(name), keyword: keyword}
	for _, r := range names {
		d.requires = append(d.requires, n.slot(r))
	}
	n.dependents = append(n.dependents, d)
	n.objectWork = true
	return nil
}

func (c *compiler) dependentSchemas(n *node, v any, ptr string) error {
	o, ok := v.(*schemaObject)
	if !ok {
		return schemaErr(ptr, "dependentSchemas must be an object")
	}
	for i, name := range o.keys {
		if err := c.dependentSchema(n, name, o.vals[i], ptr+"/"+escapePointer(name)); err != nil {
			return err
		}
	}
	return nil
}

// dependentSchema applies the schema v at ptr to the whole object when it has the member
// name, as {"if": {"type": "object", "required": [name]}, "then": v} in n's allOf would.
func (c *compiler) dependentSchema(n *node, name string, v any, ptr string) error {
	then, err := c.schema(v, ptr)
	if err != nil {
		return err
	}
	present := c.present[name]
	if present == nil {
		present = newNode(ptr)
		present.types, present.typeNames = tObject, []string{"object"}
		present.required = []int{present.slot(name)}
		present.objectWork = true
		present.derive(false)
		c.present[name] = present
	}
	cond := newNode(ptr)
	cond.ifn, cond.then, cond.applicators = present, then, true
	cond.derive(false)
	n.allOf = append(n.allOf, cond)
	n.applicators = true
	return nil
}

// dependencies compiles the keyword dependentRequired and dependentSchemas come from: each
// member requires a list of names or a schema.
func (c *compiler) dependencies(n *node, v any, ptr string) error {
	o, ok := v.(*schemaObject)
	if !ok {
		return schemaErr(ptr, "dependencies must be an object")
	}
	for i, name := range o.keys {
		at := ptr + "/" + escapePointer(name)
		var err error
		if _, list := o.vals[i].([]any); list {
			err = c.requires(n, name, o.vals[i], at, "dependencies")
		} else {
			err = c.dependentSchema(n, name, o.vals[i], at)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *compiler) patternProperties(n *node, v any, ptr string) error {
	o, ok := v.(*schemaObject)
	if !ok {
		return schemaErr(ptr, "patternProperties must be an object")
	}
	for i, expr := range o.keys {
		at := ptr + "/" + escapePointer(expr)
		p, err := compilePattern(expr)
		if err != nil {
			return schemaErr(at, "pattern %q does not compile as a Go regular expression: %v", expr, err)
		}
		sub, err := c.schema(o.vals[i], at)
		if err != nil {
			return err
		}
		n.patterns = append(n.patterns, patternProp{p, sub})
	}
	n.objectWork = true
	return nil
}

func (c *compiler) schemaList(v any, ptr string) ([]*node, error) {
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		return nil, schemaErr(ptr, "must be a non-empty array of schemas")
	}
	out := make([]*node, len(arr))
	for i, s := range arr {
		var err error
		if out[i], err = c.schema(s, ptr+"/"+strconv.Itoa(i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func count(v any, ptr string) (int, error) {
	if num, ok := v.(json.Number); ok {
		if n, _ := parseNumber([]byte(num), nil); n.isInt() && !n.neg {
			f, _ := strconv.ParseFloat(num.String(), 64)
			return int(min(f, 1<<31-1)), nil
		}
	}
	return 0, schemaErr(ptr, "must be a non-negative integer")
}

func stringList(v any, ptr string) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, schemaErr(ptr, "must be an array of strings")
	}
	out := make([]string, 0, len(arr))
	seen := make(map[string]bool, len(arr))
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, schemaErr(ptr, "must be an array of strings")
		}
		if seen[s] {
			return nil, schemaErr(ptr, "lists %q twice", s)
		}
		seen[s] = true
		out = append(out, s)
	}
	return out, nil
}
