package guard

// LintFor: what a model provider does with a tool's inputSchema, rule by rule, each rule
// read from the provider's documentation or from the errors its API was seen to return.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A Target is a model provider's API as it reads the schemas of the tools it is given.
type Target string

// The targets LintFor knows.
const (
	// OpenAIStrict is OpenAI's function calling with "strict": true (Chat Completions and
	// the Responses API), which takes the Structured Outputs subset of JSON Schema.
	OpenAIStrict Target = "openai-strict"
	// Anthropic is the Messages API's tools[].input_schema, without strict tool use.
	Anthropic Target = "anthropic"
	// AnthropicStrict is the Messages API's tools[].input_schema under strict tool use
	// ("strict": true), which takes the structured outputs subset.
	AnthropicStrict Target = "anthropic-strict"
	// Gemini is the Gemini API's functionDeclarations[].parameters, an OpenAPI 3.0 Schema
	// subset (not parametersJsonSchema).
	Gemini Target = "gemini"
)

// Targets returns the targets LintFor knows, in the order of their constants.
func Targets() []Target { return []Target{OpenAIStrict, Anthropic, AnthropicStrict, Gemini} }

// An Effect is what a provider does with a construct of a schema.
type Effect string

// The effects a rule of LintFor names.
const (
	Rejects Effect = "rejects" // the request fails, for every tool it carries
	Ignores Effect = "ignores" // the keyword is accepted and not enforced
)

// LintFor reviews a tool's inputSchema as target reads it: each finding names its rule
// (target/id), where in the schema, what the provider does (its Effect) and how to write
// the schema so that it does not. The schema need not compile here (a provider may take
// what this package refuses, such as a lookahead in a pattern), only be a JSON object;
// an unknown target is an error too. The rules, with where each was read, are
// in docs/providers.md.
func LintFor(target Target, schema []byte) ([]Advice, error) {
	if !slices.Contains(Targets(), target) {
		return nil, fmt.Errorf("guard: unknown lint target %q", target)
	}
	tree, err := parseSchema(schema)
	if err != nil {
		return nil, &SchemaError{Location: "#", Reason: "not valid JSON: " + err.Error()}
	}
	if _, ok := tree.(*schemaObject); !ok {
		return nil, &SchemaError{Location: "#", Reason: "a tool's schema is a JSON object"}
	}
	w := providerWalk{}
	for _, r := range providerRules {
		if r.target == target {
			w.rules = append(w.rules, r)
		}
	}
	w.schema(tree, "", 0, nil)
	for _, r := range w.rules {
		if r.total != nil {
			if msg := r.total(&w.sums); msg != "" {
				w.add(r, "", msg)
			}
		}
	}
	return w.out, nil
}

// A providerRule is one thing a provider does with one construct. Exactly one of at and
// total finds it: at in each subschema, total in the sums over the whole schema.
type providerRule struct {
	target Target
	id     string
	effect Effect
	at     func(n schemaNode) []string // the pointers below n.ptr where the construct is, as "/keyword"
	total  func(s *schemaSums) string  // what is over the limit, or ""
	says   string                      // what the provider does, and the fix
	source string                      // where it was read: a page, or an issue that shows the API's error
}

// sourcesRead is when every source of providerRules was read.
const sourcesRead = "2026-12-05"

// A schemaNode is one subschema as providerWalk meets it.
type schemaNode struct {
	o         *schemaObject // nil for a boolean schema
	ptr       string
	depth     int  // object schemas above it and it, from the root
	recursive bool // its $ref leads back to a schema around it
}

// schemaSums are what the whole schema holds, for the limits of a provider.
type schemaSums struct {
	properties int // declared properties, all objects together
	depth      int // the deepest nesting of object schemas
	enumValues int
	text       int // the length of property and definition names, enum and const strings
	bigEnum    int // the total length of the strings of the longest enum of over 250 values
	optional   int // declared properties not required
	unions     int // properties whose schema is an anyOf or a list of types
}

type providerWalk struct {
	rules []providerRule // the target's
	sums  schemaSums
	out   []Advice
}

func (w *providerWalk) add(r providerRule, ptr, says string) {
	w.out = append(w.out, Advice{Location: fragment(ptr), Rule: string(r.target) + "/" + r.id, Effect: r.effect, Message: says})
}

// schema applies the target's rules to the subschema v at ptr and below; ancestors are the
// pointers of the schemas around it.
func (w *providerWalk) schema(v any, ptr string, depth int, ancestors []string) {
	o, _ := v.(*schemaObject)
	n := schemaNode{o: o, ptr: ptr, depth: depth}
	if o != nil {
		if typesOf(o)["object"] || hasAny(o, "properties") {
			n.depth++
			w.sums.depth = max(w.sums.depth, n.depth)
		}
		n.recursive = recursiveRef(o, ancestors)
		w.count(o)
	}
	for _, r := range w.rules {
		if r.at == nil {
			continue
		}
		for _, at := range r.at(n) {
			w.add(r, ptr+at, r.says)
		}
	}
	if o == nil {
		return
	}
	ancestors = append(ancestors, ptr)
	eachSubschema(o, ptr, func(s any, at, _ string) { w.schema(s, at, n.depth, ancestors) })
}

// count adds what o declares itself to the sums.
func (w *providerWalk) count(o *schemaObject) {
	s := &w.sums
	if props, ok := o.get("properties"); ok {
		if po, ok := props.(*schemaObject); ok {
			s.properties += len(po.keys)
			required := requiredNames(o)
			for i, name := range po.keys {
				s.text += len(name)
				if !required[name] {
					s.optional++
				}
				if p, ok := po.vals[i].(*schemaObject); ok {
					t, _ := p.get("type")
					if _, list := t.([]any); list || hasAny(p, "anyOf") {
						s.unions++
					}
				}
			}
		}
	}
	for _, k := range []string{"$defs", "definitions"} {
		if defs, ok := o.get(k); ok {
			if d, ok := defs.(*schemaObject); ok {
				for _, name := range d.keys {
					s.text += len(name)
				}
			}
		}
	}
	if e, ok := o.get("enum"); ok {
		values, length := asList(e), 0
		s.enumValues += len(values)
		for _, v := range values {
			if str, ok := v.(string); ok {
				length += len(str)
			}
		}
		s.text += length
		if len(values) > 250 {
			s.bigEnum = max(s.bigEnum, length)
		}
	}
	if c, ok := o.get("const"); ok {
		if str, ok := c.(string); ok {
			s.text += len(str)
		}
	}
}

// How a keyword's value holds subschemas.
const (
	noSubschemas = iota
	schemaMap    // an object of them, by name
	schemaList   // an array of them
	oneSchema    // one
)

// subschemasOf says how keyword k, of value v, holds subschemas.
func subschemasOf(k string, v any) int {
	switch k {
	case "properties", "$defs", "definitions", "patternProperties", "dependentSchemas":
		return schemaMap
	case "allOf", "anyOf", "oneOf", "prefixItems":
		return schemaList
	case "items":
		if _, ok := v.([]any); ok {
			return schemaList
		}
		return oneSchema
	case "additionalProperties", "additionalItems", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems":
		return oneSchema
	}
	return noSubschemas
}

// eachSubschema calls fn with each subschema of o, its pointer, and, for a property's, the
// property's name.
func eachSubschema(o *schemaObject, ptr string, fn func(s any, at, member string)) {
	for i, k := range o.keys {
		v := o.vals[i]
		at := ptr + "/" + escapePointer(k)
		switch subschemasOf(k, v) {
		case schemaMap:
			if m, ok := v.(*schemaObject); ok {
				for j, name := range m.keys {
					member := ""
					if k == "properties" {
						member = name
					}
					fn(m.vals[j], at+"/"+escapePointer(name), member)
				}
			}
		case schemaList:
			for j, s := range asList(v) {
				fn(s, at+"/"+strconv.Itoa(j), "")
			}
		case oneSchema:
			fn(v, at, "")
		}
	}
}

// recursiveRef reports whether o's $ref is local and leads to a schema around it.
func recursiveRef(o *schemaObject, ancestors []string) bool {
	ref, _ := o.get("$ref")
	r, ok := ref.(string)
	return ok && strings.HasPrefix(r, "#") && slices.Contains(ancestors, strings.TrimPrefix(r, "#"))
}

// The matchers of providerRules.

// keywords finds the keywords of names in a subschema.
func keywords(names ...string) func(schemaNode) []string {
	return func(n schemaNode) []string {
		var out []string
		for _, k := range n.o.keysOf(names) {
			out = append(out, "/"+escapePointer(k))
		}
		return out
	}
}

// rootKeywords finds the keywords of names at the root.
func rootKeywords(names ...string) func(schemaNode) []string {
	kw := keywords(names...)
	return func(n schemaNode) []string {
		if n.ptr != "" {
			return nil
		}
		return kw(n)
	}
}

// keysOf returns the keys of o among names, in o's order.
func (o *schemaObject) keysOf(names []string) []string {
	if o == nil {
		return nil
	}
	var out []string
	for _, k := range o.keys {
		if slices.Contains(names, k) {
			out = append(out, k)
		}
	}
	return out
}

// isObject reports whether n describes objects: its type says so, or it declares
// properties.
func (n schemaNode) isObject() bool {
	return n.o != nil && (typesOf(n.o)["object"] || hasAny(n.o, "properties"))
}

// notClosed finds an object schema whose additionalProperties is not false.
func notClosed(n schemaNode) []string {
	if !n.isObject() {
		return nil
	}
	if a, ok := n.o.get("additionalProperties"); !ok {
		return []string{""}
	} else if a != false {
		return []string{"/additionalProperties"}
	}
	return nil
}

// optionalMembers finds the declared properties that required does not list.
func optionalMembers(n schemaNode) []string {
	props, _ := n.o.get("properties")
	po, _ := props.(*schemaObject)
	if po == nil {
		return nil
	}
	required := requiredNames(n.o)
	var out []string
	for _, name := range po.keys {
		if !required[name] {
			out = append(out, "/properties/"+escapePointer(name))
		}
	}
	return out
}

// requiredNames returns the names o's required lists.
func requiredNames(o *schemaObject) map[string]bool {
	required, _ := o.get("required")
	names := map[string]bool{}
	for _, r := range asList(required) {
		if s, ok := r.(string); ok {
			names[s] = true
		}
	}
	return names
}

// objectWithoutProperties finds an object schema that declares no properties.
func objectWithoutProperties(n schemaNode) []string {
	if n.o != nil && typesOf(n.o)["object"] && !hasAny(n.o, "properties") {
		return []string{""}
	}
	return nil
}

// rootNotObject finds a root whose type is not "object".
func rootNotObject(n schemaNode) []string {
	if n.ptr != "" {
		return nil
	}
	if t, _ := n.o.get("type"); t != "object" {
		if n.o.keysOf([]string{"type"}) != nil {
			return []string{"/type"}
		}
		return []string{""}
	}
	return nil
}

// rootWithoutType finds a root that has no type.
func rootWithoutType(n schemaNode) []string {
	if n.ptr == "" && !hasAny(n.o, "type") {
		return []string{""}
	}
	return nil
}

// arrayWithoutItems finds an array schema that does not say what its items are.
func arrayWithoutItems(n schemaNode) []string {
	if n.o != nil && typesOf(n.o)["array"] && !hasAny(n.o, "items", "prefixItems") {
		return []string{""}
	}
	return nil
}

// untyped finds a subschema with no type that does not take its values from a $ref, an
// enum, a const or subschemas.
func untyped(n schemaNode) []string {
	if n.ptr == "" || isDefinition(n.ptr) {
		return nil
	}
	if n.o != nil && !hasAny(n.o, "type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const") {
		return []string{""}
	}
	return nil
}

// isDefinition reports whether ptr is a definition itself, not a schema that uses it.
func isDefinition(ptr string) bool {
	i := strings.LastIndexByte(ptr, '/')
	parent := ptr[:max(i, 0)]
	return strings.HasSuffix(parent, "/$defs") || strings.HasSuffix(parent, "/definitions")
}

// typeList finds a type given as a list of types.
func typeList(n schemaNode) []string {
	if t, ok := n.o.get("type"); ok {
		if _, list := t.([]any); list {
			return []string{"/type"}
		}
	}
	return nil
}

// formatOutside returns a matcher of a string format outside known.
func formatOutside(known ...string) func(schemaNode) []string {
	return func(n schemaNode) []string {
		f, ok := n.o.get("format")
		if s, _ := f.(string); ok && !slices.Contains(known, s) && !numberFormat(n.o, s) {
			return []string{"/format"}
		}
		return nil
	}
}

// numberFormat reports whether format is a number's width, as Gemini's schema has them.
func numberFormat(o *schemaObject, format string) bool {
	types := typesOf(o)
	return (types["integer"] && (format == "int32" || format == "int64")) || (types["number"] && (format == "float" || format == "double"))
}

// enumOf returns a matcher of an enum that holds a value whose JSON type is not allowed.
func enumOf(allowed ...string) func(schemaNode) []string {
	return func(n schemaNode) []string {
		e, _ := n.o.get("enum")
		for i, v := range asList(e) {
			if !slices.Contains(allowed, jsonTypeOf(v)) && !(jsonTypeOf(v) == "integer" && slices.Contains(allowed, "number")) {
				return []string{"/enum/" + strconv.Itoa(i)}
			}
		}
		return nil
	}
}

// recursion finds a $ref back to a schema around it.
func recursion(n schemaNode) []string {
	if n.recursive {
		return []string{"/$ref"}
	}
	return nil
}

// externalRef finds a $ref to another document.
func externalRef(n schemaNode) []string {
	ref, _ := n.o.get("$ref")
	if r, ok := ref.(string); ok && !strings.HasPrefix(r, "#") {
		return []string{"/$ref"}
	}
	return nil
}

// refInAllOf finds a $ref among the subschemas of an allOf.
func refInAllOf(n schemaNode) []string {
	all, _ := n.o.get("allOf")
	for i, s := range asList(all) {
		if so, ok := s.(*schemaObject); ok && hasAny(so, "$ref") {
			return []string{"/allOf/" + strconv.Itoa(i) + "/$ref"}
		}
	}
	return nil
}

// itemsBeyondOne finds array bounds other than minItems 0 or 1.
func itemsBeyondOne(n schemaNode) []string {
	out := keywords("maxItems", "uniqueItems", "contains", "minContains", "maxContains")(n)
	if m, ok := n.o.get("minItems"); ok {
		if num, ok := m.(json.Number); !ok || (num != "0" && num != "1") {
			out = append(out, "/minItems")
		}
	}
	return out
}

// unsupportedPattern finds a pattern that uses a backreference, a lookaround or a word
// boundary.
func unsupportedPattern(n schemaNode) []string {
	p, _ := n.o.get("pattern")
	s, ok := p.(string)
	if !ok {
		return nil
	}
	for _, construct := range []string{"(?=", "(?!", "(?<=", "(?<!", `\b`, `\B`, `\1`, `\2`, `\3`, `\4`, `\5`, `\6`, `\7`, `\8`, `\9`, `\k<`} {
		if strings.Contains(s, construct) {
			return []string{"/pattern"}
		}
	}
	return nil
}

// keywordsOutside returns a matcher of the keywords of a subschema that are not among
// known: the fields a provider's schema type has.
func keywordsOutside(known ...string) func(schemaNode) []string {
	return func(n schemaNode) []string {
		if n.o == nil {
			return nil
		}
		var out []string
		for _, k := range n.o.keys {
			if !slices.Contains(known, k) {
				out = append(out, "/"+escapePointer(k))
			}
		}
		return out
	}
}

// over returns the message of a sum past its limit, or "".
func over(what string, got, limit int) string {
	if got <= limit {
		return ""
	}
	return fmt.Sprintf("%s: %d, past the limit of %d; split the tool or trim the schema", what, got, limit)
}
