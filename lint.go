package mcpvalidate

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Advice is one remark of Lint on a schema: where (a JSON Pointer fragment), which rule,
// and what a reviewer would say.
type Advice struct {
	Location string
	Rule     string
	Message  string
}

// String renders the advice as "location: message [rule]".
func (a Advice) String() string { return a.Location + ": " + a.Message + " [" + a.Rule + "]" }

// Lint reviews a tool's inputSchema the way a strict reviewer would: keywords that leave
// the fast subset, objects open to any extra member, identifiers and dates without a
// pattern or format, sets that look closed but are left open, unbounded arrays and
// recursion, required names that are not declared, enum values of the wrong type. A schema
// that does not compile is an error, as from Compile.
func Lint(schema []byte, opts ...Option) ([]Advice, error) {
	if _, err := Compile(schema, opts...); err != nil {
		return nil, err
	}
	tree, _ := parseSchema(schema) // Compile succeeded, so this does
	l := &linter{}
	l.schema(tree, "", "", nil)
	return l.out, nil
}

type linter struct{ out []Advice }

func (l *linter) add(ptr, rule, msg string) {
	l.out = append(l.out, Advice{Location: fragment(ptr), Rule: rule, Message: msg})
}

var (
	identifierName = regexp.MustCompile(`(?i)(^|[_-])(id|uuid|identifier|email|e-?mail|phone|url|uri|date|time|timestamp|datetime)$|[a-z](Id|ID|Email|Phone|Url|URL|Uri|Date|Time|At)$|^(email|phone|url|uri|date|time)`)
	closedName     = regexp.MustCompile(`(?i)(^|[_-])(status|state|kind|type|mode|level|severity|priority|category|unit|units|currency|direction|sort_order|order_by|sort|format|method|role|channel|reason)$`)
)

// schema reviews the schema v at ptr; name is the member it describes, if any, and
// ancestors are the pointers of the schemas around it, for finding recursion.
func (l *linter) schema(v any, ptr, name string, ancestors []string) {
	o, ok := v.(*object)
	if !ok {
		return
	}
	ancestors = append(ancestors, ptr)
	for _, k := range o.keys {
		if outsideSubset[k] || k == "$id" && ptr != "" {
			l.add(ptr+"/"+escapePointer(k), "outside-subset", "keyword "+k+" is outside the fast subset: the full engine validates this schema, more slowly")
		}
	}
	types := typesOf(o)
	_, hasProps := o.get("properties")
	if ref, ok := o.get("$ref"); ok {
		if r, ok := ref.(string); ok && strings.HasPrefix(r, "#") {
			target := strings.TrimPrefix(r, "#")
			if slices.Contains(ancestors, target) || target == "" {
				l.add(ptr+"/$ref", "unbounded-recursion", "recursive $ref: only the validator's depth limit bounds how deep the arguments nest; keep the recursion behind a discriminator and bound the arrays along it with maxItems")
			}
		}
	}
	if types["object"] || hasProps && len(types) == 0 {
		if _, ok := o.get("additionalProperties"); !ok {
			if _, ok := o.get("unevaluatedProperties"); !ok {
				l.add(ptr, "open-object", "the object accepts any extra member: add \"additionalProperties\": false so hallucinated arguments are refused")
			}
		}
	}
	if types["array"] {
		if _, ok := o.get("maxItems"); !ok {
			l.add(ptr, "unbounded-array", "the array has no maxItems: bound it so a runaway call cannot send millions of items")
		}
	}
	if types["string"] && name != "" && !hasAny(o, "pattern", "format", "enum", "const") {
		switch {
		case identifierName.MatchString(name):
			l.add(ptr, "unconstrained-identifier", "\""+name+"\" names an identifier, date, time, phone, email or URL but has no pattern or format: state its grammar")
		case closedName.MatchString(name):
			l.add(ptr, "open-set", "\""+name+"\" looks like a closed set of values but has no enum: list the allowed values")
		}
	}
	if req, ok := o.get("required"); ok {
		props, _ := o.get("properties")
		po, _ := props.(*object)
		for _, r := range asList(req) {
			if s, ok := r.(string); ok && (po == nil || !slices.Contains(po.keys, s)) && hasProps {
				l.add(ptr+"/required", "undeclared-required", "\""+s+"\" is required but not declared in properties: declare its type, or it can never be satisfied under additionalProperties false")
			}
		}
	}
	if e, ok := o.get("enum"); ok && len(types) > 0 {
		for i, val := range asList(e) {
			if t := jsonTypeOf(val); !types[t] && !(t == "integer" && types["number"]) && !(t == "number" && types["integer"] && isIntegral(val)) {
				l.add(ptr+"/enum/"+strconv.Itoa(i), "enum-type", "enum value "+jsonText(val)+" is "+t+", which \"type\" does not allow: it can never be chosen")
			}
		}
	}
	l.children(o, ptr, ancestors)
}

func (l *linter) children(o *object, ptr string, ancestors []string) {
	for i, k := range o.keys {
		v := o.vals[i]
		at := ptr + "/" + escapePointer(k)
		switch k {
		case "properties", "$defs", "definitions", "patternProperties", "dependentSchemas":
			if m, ok := v.(*object); ok {
				for j, name := range m.keys {
					member := ""
					if k == "properties" {
						member = name
					}
					l.schema(m.vals[j], at+"/"+escapePointer(name), member, ancestors)
				}
			}
		case "allOf", "anyOf", "oneOf", "prefixItems":
			for j, s := range asList(v) {
				l.schema(s, at+"/"+strconv.Itoa(j), "", ancestors)
			}
		case "items":
			if arr, ok := v.([]any); ok {
				for j, s := range arr {
					l.schema(s, at+"/"+strconv.Itoa(j), "", ancestors)
				}
			} else {
				l.schema(v, at, "", ancestors)
			}
		case "additionalProperties", "additionalItems", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems":
			l.schema(v, at, "", ancestors)
		}
	}
}

func typesOf(o *object) map[string]bool {
	out := map[string]bool{}
	t, _ := o.get("type")
	switch t := t.(type) {
	case string:
		out[t] = true
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				out[s] = true
			}
		}
	}
	return out
}

func hasAny(o *object, keys ...string) bool {
	for _, k := range keys {
		if _, ok := o.get(k); ok {
			return true
		}
	}
	return false
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func jsonTypeOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if isIntegral(v) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	}
	return "object"
}

func isIntegral(v any) bool {
	n, ok := v.(json.Number)
	if !ok {
		return false
	}
	num, _ := parseNumber([]byte(n), nil)
	return num.isInt()
}
