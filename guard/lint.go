package guard

// Lint: a strict reviewer's advice on a tool's inputSchema.

import (
	"encoding/json"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
)

// Advice is one remark of Lint or LintFor on a schema: where (a JSON Pointer fragment),
// which rule, what a provider does with it (LintFor's), and what to change.
type Advice struct {
	Location string // where in the schema
	Rule     string // the rule's name, such as unbounded-array or openai-strict/one-of
	Effect   Effect // what the target does with the construct; "" for Lint's advice
	Message  string // what to change, and why
}

// String renders the advice as "location: message [rule]", or, with an Effect,
// "location: effect: message [rule]".
func (a Advice) String() string {
	if a.Effect != "" {
		return a.Location + ": " + string(a.Effect) + ": " + a.Message + " [" + a.Rule + "]"
	}
	return a.Location + ": " + a.Message + " [" + a.Rule + "]"
}

// Lint reviews a tool's inputSchema the way a strict reviewer would, giving only advice
// that can be followed without refusing calls the tool takes: objects that declare their
// members but accept others, maps that constrain nothing, strings of an evident form (an
// email, a SHA, a date its description spells out) without a pattern or format, values a
// description lists without an enum, anchors that bind one alternative each, unbounded
// arrays and recursion, required names that are not declared, enum values of the wrong
// type. A schema that does not compile is an error, as from Compile.
func Lint(schema []byte, opts ...CompileOption) ([]Advice, error) {
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

// A grammar is a kind of string value with a fixed form, recognised by the member's name,
// by what its description says of the value, or (both) by the two together; fix says how
// to state it in the schema.
type grammar struct {
	name, description *regexp.Regexp // either may be nil
	both              bool
	what, fix         string
}

var (
	// dateName is a member name that may hold a date or a time, in some form.
	dateName = regexp.MustCompile(`(?i)date|time|since|until|before|after|_at$|[a-z]At$|published|modified|updated|created|deadline|due`)
	// alternatives is a description that offers more than one form ("a SHA, branch or
	// tag", "a date or a range"): no one grammar holds.
	alternatives = regexp.MustCompile(`(?i)\bor\b|\beither\b`)
)

// grammars are tried in order; the first that recognises a member decides. Dates and times
// need a name and a description that gives their form: a member named "since" or
// "eventTime" may well take "now-1h". Opaque identifiers ("gist_id", a GraphQL node ID)
// have no form to state and are not recognised at all.
var grammars = []grammar{
	{name: regexp.MustCompile(`(?i)e-?mail`), what: "an email address", fix: `"format": "email"`},
	{name: regexp.MustCompile(`(?i)(^|[_-])(uuid|guid)$|[a-z](Uuid|UUID|Guid|GUID)$`), what: "a UUID", fix: `"format": "uuid"`},
	{name: regexp.MustCompile(`(?i)(^|[_-])(url|uri)$|[a-z](Url|URL|Uri|URI)$`), what: "a URL", fix: `"format": "uri"`},
	{name: regexp.MustCompile(`(?i)(^|[_-])ip(v4|v6)?(_?address)?$|[a-z]IP(v4|v6)?(Address)?$|^ipAddress$`), what: "an IP address", fix: `"format": "ipv4" or "ipv6"`},
	{name: dateName, description: regexp.MustCompile(`(?i)RFC ?3339|ISO[ -]?8601 (date-?time|timestamp)|YYYY-MM-DDTHH|\btimestamp\b`), both: true,
		what: "a date and time", fix: `"format": "date-time"`},
	{name: dateName, description: regexp.MustCompile(`(?i)YYYY-MM-DD|ISO[ -]?8601 date\b`), both: true, what: "a date", fix: `"format": "date"`},
	{name: regexp.MustCompile(`(?i)(^|[_-])(sha|commit_?(id|sha))$|^commit(ID|Id|Sha|SHA)$|[a-z]Sha$`), what: "a commit or object SHA", fix: `a "pattern" such as "^[0-9a-f]{7,40}$"`},
	{name: regexp.MustCompile(`(?i)(^|[_-])cve(_?id)?$|^cve(Id|ID)$`), what: "a CVE ID", fix: `a "pattern" such as "^CVE-[0-9]{4}-[0-9]{4,}$"`},
	{description: regexp.MustCompile(`\(format: [^)]+\)`), what: "a value whose form the description states", fix: `a "pattern" for that form`},
}

// grammarOf returns the grammar of a string member, or nil.
func grammarOf(name, description string) *grammar {
	if alternatives.MatchString(description) {
		return nil
	}
	for i := range grammars {
		g := &grammars[i]
		byName := g.name != nil && g.name.MatchString(name)
		byDescription := g.description != nil && g.description.MatchString(description)
		if g.both && byName && byDescription || !g.both && (byName || byDescription) {
			return g
		}
	}
	return nil
}

var (
	closedName = regexp.MustCompile(`(?i)(^|[_-])(status|state|kind|type|mode|level|severity|priority|category|unit|units|currency|direction|sort_order|order_by|sort|format|method|role|channel|reason)$`)
	// quotedOption is a value a description offers in quotes: 'add', "asc", `desc`.
	quotedOption = regexp.MustCompile("'[A-Za-z0-9_-]+'|\"[A-Za-z0-9_-]+\"|`[A-Za-z0-9_-]+`")
)

// schema reviews the schema v at ptr; name is the member it describes, if any, and
// ancestors are the pointers of the schemas around it, for finding recursion.
func (l *linter) schema(v any, ptr, name string, ancestors []string) {
	o, ok := v.(*schemaObject)
	if !ok {
		return
	}
	ancestors = append(ancestors, ptr)
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
		l.object(o, ptr)
	}
	if types["array"] && !hasAny(o, "maxItems") && !boundedItems(o) {
		l.add(ptr, "unbounded-array", "the array has no maxItems: bound it so a runaway call cannot send millions of items")
	}
	if types["string"] && name != "" && !hasAny(o, "pattern", "format", "enum", "const") {
		description, _ := o.get("description")
		d, _ := description.(string)
		if g := grammarOf(name, d); g != nil {
			l.add(ptr, "unconstrained-identifier", "\""+name+"\" takes "+g.what+" but states no form for it: add "+g.fix)
		} else if closedName.MatchString(name) && quotedOption.MatchString(d) {
			l.add(ptr, "open-set", "\""+name+"\" takes one of the values its description lists, but has no enum: list them in \"enum\"")
		}
	}
	if p, ok := o.get("pattern"); ok {
		if p, ok := p.(string); ok && looseAnchors(p) {
			l.add(ptr+"/pattern", "loose-anchors", "the anchors bind only the first and last alternatives: "+patternText(p)+" accepts any string that starts with the first or ends with the last; group them: ^(?:A|B)$")
		}
	}
	if req, ok := o.get("required"); ok {
		props, _ := o.get("properties")
		po, _ := props.(*schemaObject)
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

// object reviews an object schema for members it lets in unchecked. An object that
// declares its members (or, at the top, declares that it has none) should refuse others;
// one that declares none is a map by design (a workflow's inputs, a JSON body), which
// additionalProperties false would empty: it is remarked on only when nothing constrains its
// members' names or values. Where subschemas applied in place (allOf, oneOf, a $ref, …)
// say what the members are, or the object is itself a branch of an allOf, closing it
// would refuse members the other schemas declare: the branches are reviewed on their own.
func (l *linter) object(o *schemaObject, ptr string) {
	if hasAny(o, "additionalProperties", "unevaluatedProperties") || hasAny(o, inPlace...) || allOfBranch.MatchString(ptr) {
		return
	}
	props, _ := o.get("properties")
	po, _ := props.(*schemaObject)
	switch {
	case po != nil && (len(po.keys) > 0 || ptr == ""):
		if !hasAny(o, "patternProperties") {
			l.add(ptr, "open-object", "the object accepts any extra member: add \"additionalProperties\": false so hallucinated arguments are refused")
		}
	case !hasAny(o, "patternProperties", "propertyNames"):
		l.add(ptr, "open-map", "the object declares no members and takes any, with any value: if it is a map by design, state what its values are with \"additionalProperties\": {…} or its names with \"propertyNames\"")
	}
}

// inPlace are the keywords whose subschemas apply to the object itself.
var inPlace = []string{"allOf", "anyOf", "oneOf", "$ref", "$dynamicRef", "if", "dependentSchemas", "dependencies"}

var allOfBranch = regexp.MustCompile(`/allOf/[0-9]+$`)

// boundedItems reports whether the items an array may hold are bounded without maxItems:
// no items beyond prefixItems, or unique items drawn from an enum.
func boundedItems(o *schemaObject) bool {
	items, ok := o.get("items")
	if ok && items == false {
		return hasAny(o, "prefixItems")
	}
	unique, _ := o.get("uniqueItems")
	io, _ := items.(*schemaObject)
	return unique == true && io != nil && hasAny(io, "enum", "const")
}

// looseAnchors reports whether pattern is an alternation at its top whose first alternative
// alone starts with ^ or whose last alone ends with $, as in ^(A)|(B)$.
func looseAnchors(pattern string) bool {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil || re.Op != syntax.OpAlternate || len(re.Sub) < 2 {
		return false
	}
	first, last := re.Sub[0], re.Sub[len(re.Sub)-1]
	return anchored(first, true) && !anchored(last, true) || anchored(last, false) && !anchored(first, false)
}

// anchored reports whether re begins (start) or ends (!start) with a text or line anchor.
func anchored(re *syntax.Regexp, start bool) bool {
	for re.Op == syntax.OpConcat && len(re.Sub) > 0 {
		if start {
			re = re.Sub[0]
		} else {
			re = re.Sub[len(re.Sub)-1]
		}
	}
	if start {
		return re.Op == syntax.OpBeginText || re.Op == syntax.OpBeginLine
	}
	return re.Op == syntax.OpEndText || re.Op == syntax.OpEndLine
}

func (l *linter) children(o *schemaObject, ptr string, ancestors []string) {
	eachSubschema(o, ptr, func(s any, at, member string) { l.schema(s, at, member, ancestors) })
}

func typesOf(o *schemaObject) map[string]bool {
	out := map[string]bool{}
	t, _ := o.get("type")
	switch t := t.(type) {
	case string:
		out[strings.ToLower(t)] = true // Gemini's schemas spell types in capitals
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				out[strings.ToLower(s)] = true
			}
		}
	}
	return out
}

func hasAny(o *schemaObject, keys ...string) bool {
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
