package mcpvalidate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// The full engine (santhosh-tekuri/jsonschema) validates schemas that need keywords outside
// the subset. Its errors become the same Violations, in the same order: required members
// first, then the arguments' own order.

type fullEngine struct {
	schema *jsonschema.Schema
	reason string
}

const fullURL = "mcpvalidate:///inputSchema.json"

// noRemote refuses every document the engine asks for: remote $refs are never fetched.
type noRemote struct{}

func (noRemote) Load(url string) (any, error) {
	return nil, errors.New("remote references are never fetched")
}

// The full engine turns numbers into big.Rat values: an exponent of a few million costs it
// seconds, and beyond that it fails. Such numbers are refused before it sees them.
const engineExpLimit = 10000

func outOfEngineRange(n number) bool {
	return !n.isZero() && (n.exp > engineExpLimit || n.exp < -engineExpLimit)
}

// hugeNumber finds a number in the parsed schema that the full engine cannot take.
func hugeNumber(v any, ptr string) error {
	switch v := v.(type) {
	case json.Number:
		if n, _ := parseNumber([]byte(v), nil); outOfEngineRange(n) {
			return schemaErr(ptr, "the number's exponent is beyond ±%d, more than the full engine takes", engineExpLimit)
		}
	case []any:
		for i, e := range v {
			if err := hugeNumber(e, ptr+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	case *object:
		for i, k := range v.keys {
			if err := hugeNumber(v.vals[i], ptr+"/"+escapePointer(k)); err != nil {
				return err
			}
		}
	}
	return nil
}

func compileFull(schema []byte, tree any, cfg config) (f *fullEngine, err error) {
	if err := hugeNumber(tree, ""); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, &SchemaError{Location: "#", Reason: fmt.Sprintf("the full JSON Schema engine failed on the schema: %v", r)}
		}
	}()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, &SchemaError{Location: "#", Reason: "not valid JSON: " + err.Error()}
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noRemote{})
	c.DefaultDraft(jsonschema.Draft2020)
	if cfg.assertFormat {
		c.AssertFormat()
	}
	if err := c.AddResource(fullURL, doc); err != nil {
		return nil, &SchemaError{Location: "#", Reason: err.Error()}
	}
	sch, err := c.Compile(fullURL)
	if err != nil {
		return nil, &SchemaError{Location: "#", Reason: "the full JSON Schema engine refuses the schema: " + err.Error()}
	}
	// The engine finds $ref loops that never descend (through $anchor, $dynamicRef or
	// $recursiveRef) only when it meets them. Values of every type meet any loop at the root.
	for _, probe := range []any{nil, true, json.Number("0"), "", []any{}, map[string]any{}} {
		if loc, ok := refCycle(sch.Validate(probe)); ok {
			return nil, &SchemaError{Location: loc, Reason: "$ref loops back to this schema without descending into the arguments; validation would never end"}
		}
	}
	return &fullEngine{schema: sch}, nil
}

// refCycle finds a $ref loop in the engine's error tree.
func refCycle(err error) (string, bool) {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return "", false
	}
	if rc, ok := ve.ErrorKind.(*kind.RefCycle); ok {
		_, frag, _ := strings.Cut(rc.KeywordLocation1, "#")
		return "#" + frag, true
	}
	for _, c := range ve.Causes {
		if loc, ok := refCycle(c); ok {
			return loc, true
		}
	}
	return "", false
}

// validate runs the engine on args, which the scanner has found well-formed.
func (f *fullEngine) validate(args []byte, limit int) []Violation {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return []Violation{{Kind: KindSyntax, Detail: err.Error()}}
	}
	if err = f.run(doc); err == errEngineFailed {
		return []Violation{{Kind: KindOther, Detail: "the full JSON Schema engine failed on these arguments"}}
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	vs := convert(ve, doc, nil)
	order := positions(args)
	sort.SliceStable(vs, func(i, j int) bool {
		return before(vs[i], vs[j], order)
	})
	if len(vs) > limit {
		vs = append(vs[:limit], Violation{Kind: KindTruncated, Count: len(vs) - limit})
	}
	return vs
}

var errEngineFailed = errors.New("the full engine panicked")

func (f *fullEngine) run(doc any) (err error) {
	defer func() {
		if recover() != nil {
			err = errEngineFailed
		}
	}()
	return f.schema.Validate(doc)
}

// convert turns the engine's error tree into violations. Where the engine explains a failed
// anyOf or oneOf by every alternative, only the alternative with the fewest failures is kept.
func convert(e *jsonschema.ValidationError, doc any, out []Violation) []Violation {
	path := instancePath(e.InstanceLocation, doc)
	keyword := ""
	if kp := e.ErrorKind.KeywordPath(); len(kp) > 0 {
		keyword = kp[len(kp)-1]
	}
	at := func(name string) Path { return append(slices.Clone(path), PathElem{Name: name, Index: -1}) }
	add := func(v Violation) {
		if v.Path == nil {
			v.Path = path
		}
		v.Keyword = keyword
		out = append(out, v)
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Group, *kind.Schema, *kind.Reference, *kind.AllOf:
		for _, c := range e.Causes {
			out = convert(c, doc, out)
		}
	case *kind.AnyOf, *kind.OneOf:
		if o, ok := k.(*kind.OneOf); ok && len(o.Subschemas) > 1 {
			add(Violation{Kind: KindManyMatch, Indexes: o.Subschemas})
			break
		}
		var best []Violation
		for _, c := range e.Causes {
			if vs := convert(c, doc, nil); best == nil || len(vs) < len(best) {
				best = vs
			}
		}
		if best == nil {
			add(Violation{Kind: KindNoMatch})
		}
		out = append(out, best...)
	case *kind.Required:
		for _, m := range k.Missing {
			add(Violation{Kind: KindRequired, Path: at(m)})
		}
	case *kind.DependentRequired:
		for _, m := range k.Missing {
			add(Violation{Kind: KindDependentRequired, Path: at(m), Name: k.Prop})
		}
	case *kind.Dependency:
		for _, m := range k.Missing {
			add(Violation{Kind: KindDependentRequired, Path: at(m), Name: k.Prop})
		}
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			add(Violation{Kind: KindAdditional, Path: at(p)})
		}
	case *kind.Type:
		add(Violation{Kind: KindType, Types: k.Want})
	case *kind.Enum:
		add(Violation{Kind: KindEnum, Values: texts(k.Want...)})
	case *kind.Const:
		add(Violation{Kind: KindConst, Values: texts(k.Want)})
	case *kind.Format:
		add(Violation{Kind: KindFormat, Limit: k.Want})
	case *kind.MinLength:
		add(Violation{Kind: KindMinLength, Limit: strconv.Itoa(k.Want)})
	case *kind.MaxLength:
		add(Violation{Kind: KindMaxLength, Limit: strconv.Itoa(k.Want)})
	case *kind.Pattern:
		add(Violation{Kind: KindPattern, Limit: k.Want})
	case *kind.Minimum:
		add(Violation{Kind: KindMinimum, Limit: ratText(k.Want)})
	case *kind.Maximum:
		add(Violation{Kind: KindMaximum, Limit: ratText(k.Want)})
	case *kind.ExclusiveMinimum:
		add(Violation{Kind: KindExclusiveMinimum, Limit: ratText(k.Want)})
	case *kind.ExclusiveMaximum:
		add(Violation{Kind: KindExclusiveMaximum, Limit: ratText(k.Want)})
	case *kind.MultipleOf:
		add(Violation{Kind: KindMultipleOf, Limit: ratText(k.Want)})
	case *kind.MinItems:
		add(Violation{Kind: KindMinItems, Limit: strconv.Itoa(k.Want)})
	case *kind.MaxItems:
		add(Violation{Kind: KindMaxItems, Limit: strconv.Itoa(k.Want)})
	case *kind.MinProperties:
		add(Violation{Kind: KindMinProperties, Limit: strconv.Itoa(k.Want)})
	case *kind.MaxProperties:
		add(Violation{Kind: KindMaxProperties, Limit: strconv.Itoa(k.Want)})
	case *kind.UniqueItems:
		add(Violation{Kind: KindUniqueItems, Indexes: []int{k.Duplicates[0], k.Duplicates[1]}})
	case *kind.AdditionalItems:
		add(Violation{Kind: KindAdditionalItem, Limit: strconv.Itoa(k.Count)})
	case *kind.FalseSchema:
		add(Violation{Kind: KindForbidden})
	case *kind.Not:
		add(Violation{Kind: KindNot})
	case *kind.PropertyNames:
		add(Violation{Kind: KindOther, Path: at(k.Property), Detail: "the member name does not satisfy propertyNames"})
	case *kind.Contains:
		add(Violation{Kind: KindOther, Detail: "must contain an item that matches the schema under contains"})
	case *kind.MinContains:
		add(Violation{Kind: KindOther, Detail: "must contain at least " + plural(k.Want, "item") + " that match the schema under contains"})
	case *kind.MaxContains:
		add(Violation{Kind: KindOther, Detail: "must contain at most " + plural(k.Want, "item") + " that match the schema under contains"})
	case *kind.RefCycle:
		add(Violation{Kind: KindOther, Detail: "the schema loops here without descending into the arguments"})
	default:
		add(Violation{Kind: KindOther, Detail: "does not satisfy the schema's " + strconv.Quote(keyword) + " keyword"})
	}
	return out
}

// instancePath turns the engine's location into a Path, telling indexes from names by
// looking at the decoded arguments.
func instancePath(loc []string, doc any) Path {
	if len(loc) == 0 {
		return nil
	}
	p := make(Path, 0, len(loc))
	cur := doc
	for _, tok := range loc {
		switch c := cur.(type) {
		case []any:
			i, _ := strconv.Atoi(tok)
			p = append(p, PathElem{Index: i})
			if i >= 0 && i < len(c) {
				cur = c[i]
			}
		case map[string]any:
			p = append(p, PathElem{Name: tok, Index: -1})
			cur = c[tok]
		default:
			p = append(p, PathElem{Name: tok, Index: -1})
		}
	}
	return p
}

func texts(vals ...any) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		b, _ := json.Marshal(v)
		out[i] = string(b)
	}
	return out
}

// ratText writes a bound as the shortest exact decimal, or as a fraction when none exists.
func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	for prec := 1; prec <= 40; prec++ {
		s := r.FloatString(prec)
		if back, ok := new(big.Rat).SetString(s); ok && back.Cmp(r) == 0 {
			return s
		}
	}
	return r.RatString()
}

// positions maps the JSON Pointer of every value in args to its offset, so that violations
// from the engine can be put in the order of the arguments.
func positions(args []byte) map[string]int {
	out := map[string]int{}
	s := &state{data: args}
	var walk func(ptr string)
	walk = func(ptr string) {
		out[ptr] = s.pos
		switch s.peek() {
		case '{':
			s.pos++
			for s.peek() == '"' {
				key, _ := s.readString()
				s.expect(':', "")
				s.peek()
				walk(ptr + "/" + escapePointer(string(key.text(s.data, &s.buf))))
				if s.peek() == ',' {
					s.pos++
				}
			}
			s.pos++
		case '[':
			s.pos++
			for i := 0; s.peek() != ']' && s.peek() != 0; i++ {
				walk(ptr + "/" + strconv.Itoa(i))
				if s.peek() == ',' {
					s.pos++
				}
			}
			s.pos++
		default:
			s.skip(kindOf(s.data[s.pos]), 0)
		}
	}
	if s.peek() != 0 {
		walk("")
	}
	return out
}

// before orders violations: at the same object, missing members first; otherwise by where
// the value stands in the arguments.
func before(a, b Violation, order map[string]int) bool {
	pa, pb := placeOf(a, order), placeOf(b, order)
	if pa != pb {
		return pa < pb
	}
	return len(a.Path) < len(b.Path)
}

func placeOf(v Violation, order map[string]int) int {
	p := v.Path
	if v.Kind == KindRequired || v.Kind == KindDependentRequired {
		// A missing member sorts just inside its parent, before the parent's members.
		return order[p[:len(p)-1].Pointer()] + 1
	}
	if pos, ok := order[p.Pointer()]; ok {
		return pos
	}
	return 0
}

var formatCache sync.Map // format name -> func(string) bool

// The formats the full engine knows; others are annotations whatever the options say.
var knownFormats = map[string]bool{
	"json-pointer": true, "relative-json-pointer": true, "uuid": true, "duration": true,
	"period": true, "ipv4": true, "ipv6": true, "hostname": true, "email": true, "date": true,
	"time": true, "date-time": true, "uri": true, "iri": true, "uri-reference": true,
	"iri-reference": true, "uri-template": true, "semver": true, "regex": true,
}

// formatChecker returns the full engine's check for a format, so that both engines always
// agree on what a date-time or an email is; nil for unknown formats.
func formatChecker(name string) func(string) bool {
	if !knownFormats[name] {
		return nil
	}
	if f, ok := formatCache.Load(name); ok {
		return f.(func(string) bool)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if c.AddResource(fullURL, map[string]any{"format": name}) != nil {
		return nil
	}
	sch, err := c.Compile(fullURL)
	if err != nil {
		return nil
	}
	f := func(s string) bool { return sch.Validate(s) == nil }
	formatCache.Store(name, f)
	return f
}
