package guard

// RewriteFor: a tool's inputSchema written so that a provider takes it, where that loses
// nothing the guard does not enforce itself against the schema as the server wrote it.

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// RewriteFor returns schema written so that target takes it, for a front that keeps
// checking calls against schema itself (the proxy under -schemas-for): every argument
// schema accepts, the rewritten schema accepts too, as the provider reads it, and what the
// rewritten schema no longer says is a constraint the front enforces. So a constraint the
// provider refuses (a format it does not know, a bound, "additionalProperties" for Gemini)
// is moved into the description; local $refs are written in place for a provider that
// takes none; "oneOf" becomes the "anyOf" that accepts at least as much; annotations the
// provider refuses are dropped. A rewrite that would refuse arguments the tool takes
// (making a member required, closing an object, narrowing a type) is never made: the
// error, a *RewriteError, says what stands in the way. A schema the target takes as it
// is comes back unchanged.
func RewriteFor(target Target, schema []byte) ([]byte, error) {
	before, err := LintFor(target, schema)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(before, rejected) {
		return schema, nil
	}
	tree, _ := parseSchema(schema) // LintFor parsed it
	r := rewriter{target: target, root: tree, budget: maxRewriteGrowth*len(schema) + 1<<16}
	out := r.schema(tree, "", true)
	if r.err != nil {
		return nil, r.err
	}
	text := appendJSON(nil, out)
	after, err := LintFor(target, text)
	if err != nil {
		return nil, err
	}
	var left []Advice
	for _, a := range after {
		if rejected(a) {
			left = append(left, a)
		}
	}
	if left != nil {
		return nil, &RewriteError{Target: target, Advice: left}
	}
	return text, nil
}

// maxRewriteGrowth bounds how many times its size a rewritten schema may grow, as $refs
// are written in place.
const maxRewriteGrowth = 8

func rejected(a Advice) bool { return a.Effect == Rejects }

// A RewriteError says why a schema cannot be written so that a target takes it without
// refusing arguments the tool takes: what the target would still reject, as LintFor finds
// it in the rewritten schema, with locations in it.
type RewriteError struct {
	Target Target
	Advice []Advice
}

func (e *RewriteError) Error() string {
	var rules []string
	for _, a := range e.Advice {
		if !slices.Contains(rules, a.Rule) {
			rules = append(rules, a.Rule)
		}
	}
	return fmt.Sprintf("%s would still reject the schema, and no rewrite that takes every argument it takes helps: %s", e.Target, strings.Join(rules, ", "))
}

type rewriter struct {
	target Target
	root   any
	refs   []string // the $refs being written in place, outermost first
	budget int      // the bytes of schema still to be written: refs in place may multiply them
	edits  int      // the changes made so far
	err    *RewriteError
}

// fail records the first reason the rewrite cannot be made, found at ptr.
func (r *rewriter) fail(ptr, format string, args ...any) {
	if r.err == nil {
		r.err = &RewriteError{Target: r.target, Advice: []Advice{{Location: fragment(ptr), Rule: "rewrite", Effect: Rejects, Message: fmt.Sprintf(format, args...)}}}
	}
}

// annotations are keywords that say nothing of what a schema accepts.
var annotations = []string{"$schema", "$id", "$comment", "$anchor", "$dynamicAnchor", "$vocabulary", "examples",
	"deprecated", "readOnly", "writeOnly", "contentMediaType", "contentEncoding"}

// schema rewrites the subschema v at ptr; root tells whether it is the document's root.
func (r *rewriter) schema(v any, ptr string, root bool) any {
	o, ok := v.(*schemaObject)
	if !ok || r.err != nil {
		return v
	}
	r.budget -= len(o.keys) * 16
	if r.budget < 0 {
		r.fail(ptr, "the schema grows too large with its $refs written in place")
		return v
	}
	if ref, ok := o.get("$ref"); ok && r.inlines() {
		return r.inline(o, ref, ptr)
	}
	out := &schemaObject{}
	var notes []string
	note := func(k string, v any) { notes = append(notes, noteFor(k, v)) }
	// Below not and if, a constraint taken away refuses more, not less: a subschema there
	// that the rewrite changes goes whole, with then and else.
	var condition any
	conditionChanged := false
	if v, ok := o.get("if"); ok {
		edits := r.edits
		condition = r.schema(v, ptr+"/if", false)
		conditionChanged = r.edits > edits
	}
	for i, k := range o.keys {
		v := o.vals[i]
		at := ptr + "/" + escapePointer(k)
		f := r.fate(o, k, v)
		if conditionChanged && (k == "if" || k == "then" || k == "else") {
			f = move
		}
		if f != keep {
			r.edits++
		}
		switch {
		case f == keep && k == "if":
			out.keys, out.vals = append(out.keys, k), append(out.vals, condition)
		case f == keep && k == "not":
			edits := r.edits
			if child := r.schema(v, at, false); r.edits == edits {
				out.keys, out.vals = append(out.keys, k), append(out.vals, child)
			} else {
				note(k, v)
			}
		}
		switch f {
		case keep:
			if k != "if" && k != "not" {
				out.keys, out.vals = append(out.keys, k), append(out.vals, r.children(k, v, at))
			}
		case drop:
		case move:
			note(k, v)
		case asEnum:
			out.put("enum", []any{v})
		case asAnyOf:
			out.put("anyOf", r.children("anyOf", v, at))
		case asNullable:
			r.nullable(out, v, at, hasAny(o, "anyOf"))
		}
	}
	if root && r.target == Gemini && !hasAny(o, "type") && hasAny(o, "properties") {
		r.edits++
		out.keys, out.vals = append([]string{"type"}, out.keys...), append([]any{"object"}, out.vals...)
	}
	if len(notes) > 0 {
		d, _ := out.get("description")
		text, _ := d.(string)
		if text != "" && !strings.HasSuffix(text, ".") {
			text += "."
		}
		out.put("description", strings.TrimSpace(text+" The server checks: "+strings.Join(notes, "; ")+"."))
	}
	return out
}

// inlines reports whether the target takes no $ref, so that they are written in place.
func (r *rewriter) inlines() bool { return r.target == Gemini }

// inline returns the schema o's local $ref names, rewritten, with o's annotations.
func (r *rewriter) inline(o *schemaObject, ref any, ptr string) any {
	s, _ := ref.(string)
	frag, ok := strings.CutPrefix(s, "#")
	if !ok {
		r.fail(ptr, "the $ref %q is to another document", s)
		return o
	}
	if unescaped, err := url.PathUnescape(frag); err == nil {
		frag = unescaped
	}
	if slices.Contains(r.refs, frag) {
		r.fail(ptr, "the $ref %q is recursive and cannot be written in place", s)
		return o
	}
	target, _, found := atPointer(r.root, frag)
	if !found {
		r.fail(ptr, "the $ref %q leads nowhere", s)
		return o
	}
	for _, k := range o.keys {
		if k != "$ref" && k != "description" && k != "title" && !slices.Contains(annotations, k) {
			r.fail(ptr, "the $ref has beside it %q, which applies with it", k)
			return o
		}
	}
	r.edits++
	r.refs = append(r.refs, frag)
	out := r.schema(target, ptr, false)
	r.refs = r.refs[:len(r.refs)-1]
	if oo, ok := out.(*schemaObject); ok {
		merged := &schemaObject{keys: slices.Clone(oo.keys), vals: slices.Clone(oo.vals)}
		for _, k := range []string{"title", "description"} {
			if v, ok := o.get(k); ok {
				merged.put(k, v)
			}
		}
		return merged
	}
	return out
}

// children rewrites the subschemas a keyword's value holds.
func (r *rewriter) children(k string, v any, at string) any {
	switch subschemasOf(k, v) {
	case schemaMap:
		m, ok := v.(*schemaObject)
		if !ok {
			return v
		}
		out := &schemaObject{keys: slices.Clone(m.keys), vals: make([]any, len(m.vals))}
		for i, name := range m.keys {
			out.vals[i] = r.schema(m.vals[i], at+"/"+escapePointer(name), false)
		}
		return out
	case schemaList:
		var out []any
		for i, s := range asList(v) {
			out = append(out, r.schema(s, fmt.Sprintf("%s/%d", at, i), false))
		}
		return out
	case oneSchema:
		return r.schema(v, at, false)
	}
	return v
}

// nullable writes a list of types as Gemini takes them: one type and "nullable", or an
// anyOf of one schema a type.
func (r *rewriter) nullable(out *schemaObject, types any, ptr string, anyOf bool) {
	var kinds []any
	null := false
	for _, t := range asList(types) {
		if t == "null" {
			null = true
		} else {
			kinds = append(kinds, t)
		}
	}
	switch {
	case len(kinds) == 1:
		out.put("type", kinds[0])
	case len(kinds) > 1:
		var alts []any
		for _, t := range kinds {
			alts = append(alts, &schemaObject{keys: []string{"type"}, vals: []any{t}})
		}
		if anyOf {
			r.fail(ptr, "a list of types beside an anyOf cannot be written as Gemini takes it")
			return
		}
		out.put("anyOf", alts)
	}
	if null {
		out.put("nullable", true)
	}
}

// put sets member k of o to v, where it stands or at the end.
func (o *schemaObject) put(k string, v any) {
	if i := slices.Index(o.keys, k); i >= 0 {
		o.vals[i] = v
		return
	}
	o.keys, o.vals = append(o.keys, k), append(o.vals, v)
}

// A fate is what a rewrite does with one keyword of a schema.
type fate uint8

const (
	keep       fate = iota
	drop            // an annotation the target refuses
	move            // a constraint the target refuses, which the front enforces: into the description
	asEnum          // a const, as an enum of its value
	asAnyOf         // a oneOf, as the anyOf that accepts at least as much
	asNullable      // a list of types, as Gemini writes one
)

// fate decides keyword k, of value v, in o, for the target.
func (r *rewriter) fate(o *schemaObject, k string, v any) fate {
	switch k {
	case "oneOf":
		return asAnyOf // which accepts at least as much, whatever the alternatives become
	case "unevaluatedProperties", "unevaluatedItems":
		return move // what the other keywords evaluate may change with them
	}
	switch r.target {
	case Gemini:
		switch {
		case k == "$defs" || k == "definitions":
			return drop // written in place where used
		case slices.Contains(annotations, k):
			return drop
		case k == "const":
			if _, ok := v.(string); ok {
				return asEnum
			}
			return move
		case k == "type":
			if _, list := v.([]any); list {
				return asNullable
			}
		case k == "enum":
			if slices.ContainsFunc(asList(v), func(e any) bool { _, ok := e.(string); return !ok }) {
				return move
			}
		case k == "format":
			if s, _ := v.(string); s != "enum" && s != "date-time" && !numberFormat(o, s) {
				return move
			}
		case k == "items":
			// A list of items, or items beyond prefixItems, which go: as one schema for
			// every item, it would refuse what the positions before take.
			if _, list := v.([]any); list || hasAny(o, "prefixItems") {
				return move
			}
		}
		if !slices.Contains(geminiFields, k) {
			return move
		}
	case OpenAIStrict:
		switch {
		case slices.Contains([]string{"allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas"}, k):
			return move
		case k == "format":
			if s, _ := v.(string); !slices.Contains(openAIFormats, s) {
				return move
			}
		}
	case AnthropicStrict:
		switch {
		case slices.Contains([]string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
			"minLength", "maxLength", "maxItems", "uniqueItems", "contains", "minContains", "maxContains"}, k):
			return move
		case k == "minItems":
			if n := jsonText(v); n != "0" && n != "1" {
				return move
			}
		case k == "enum":
			if slices.ContainsFunc(asList(v), func(e any) bool { t := jsonTypeOf(e); return t == "object" || t == "array" }) {
				return move
			}
		case k == "pattern":
			if unsupportedPattern(schemaNode{o: o}) != nil {
				return move
			}
		}
	}
	return keep
}

// noteFor says in words what keyword k of value v asks, for a description.
func noteFor(k string, v any) string {
	switch k {
	case "additionalProperties":
		if v == false {
			return "no other properties"
		}
	case "format":
		if s, ok := v.(string); ok {
			return "format " + s
		}
	}
	return k + " " + jsonText(v)
}
