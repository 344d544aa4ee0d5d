package mcpvalidate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// A SchemaError says why a schema cannot be compiled and where: Location is a JSON Pointer
// fragment into the schema, such as #/properties/days/minimum.
type SchemaError struct {
	Location string
	Reason   string
}

// Error says where the schema is wrong and why.
func (e *SchemaError) Error() string {
	return "invalid schema at " + e.Location + ": " + e.Reason
}

// node is one compiled schema. The zero node accepts everything.
type node struct {
	loc    string // JSON Pointer fragment, for messages about the schema itself
	reject bool   // the schema false

	types     typeSet
	typeNames []string // as the schema lists them

	enum      *valueSet
	enumTexts []string
	konst     *valueSet
	konstText string

	minLength, maxLength int // -1 when absent
	pattern              *pattern
	format               string
	checkFormat          func(string) bool

	minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf *bound

	props      []prop
	propIndex  map[string]int // for objects with many properties
	patterns   []patternProp  // patternProperties, in schema order
	names      *node          // propertyNames: nil allows any name
	slots      []string       // member names tracked for presence
	slotIndex  map[string]int // position of each name in slots
	required   []int          // slots
	dependents []dependent
	additional *node // nil: any other member is allowed
	// leads marks the first bytes of the declared names as written, when no other member
	// is allowed and every name is written without escapes; else nil.
	leads    *[256]bool
	minProps int
	maxProps int // -1 when absent
	// settled: at most 64 tracked names and no keyword on the whole object but required,
	// which then holds when the names present cover requiredMask.
	settled      bool
	requiredMask uint64

	prefix     []*node
	items      *node // nil: any further item is allowed
	minItems   int
	maxItems   int // -1 when absent
	uniqueItem bool
	contains   *node
	// minContains and maxContains bound the items contains matches, when it is present;
	// -1 when absent, which for minContains means at least one.
	minContains, maxContains int

	ref                 *node
	allOf, anyOf, oneOf []*node
	not                 *node
	ifn, then, elsen    *node
	// bareIf is an if without then or else: it asserts nothing, but the members and items
	// it evaluates when it holds count for unevaluatedProperties and unevaluatedItems.
	bareIf *node
	// unevaluatedProperties and unevaluatedItems (unevaluated.go); nil when absent.
	// containsEvaluates: items that contains matches count as evaluated (2020-12).
	unevalProps, unevalItems *node
	containsEvaluates        bool

	quick       bool // the quick pass decides this schema and all below it (quick.go)
	refOnly     bool // nothing but $ref applies: validation follows it directly
	ownless     bool // no keyword but applicators: the value is scanned only through them
	applicators bool // any of ref, allOf, anyOf, oneOf, not, if
	objectWork  bool // any keyword that looks inside an object
	arrayWork   bool
	numberWork  bool // enum, const or a numeric bound
	intBounds   bool // no enum or const, and every numeric bound is a small integer
	stringWork  bool // enum, const, a length, a pattern or an asserted format
}

// target is the schema that applies in n's place: n itself or, when nothing but a $ref
// applies, where the references lead; nil for nil.
func (n *node) target() *node {
	for n != nil && n.refOnly {
		n = n.ref
	}
	return n
}

type prop struct {
	name   string
	quoted string // name and its closing quote, when the name needs no escape; else ""
	// The first 16 bytes of quoted as two little-endian words, with masks for the bytes it
	// fills, so that a short name is recognised in two comparisons.
	words, masks [2]uint64
	short        bool // quoted fits in words
	node         *node
	slot         int
}

func newProp(name string, sub *node, slot int) prop {
	p := prop{name: name, node: sub, slot: slot}
	for i := 0; i < len(name); i++ {
		if !plain[name[i]] {
			return p
		}
	}
	p.quoted = name + `"`
	p.short = len(p.quoted) <= 16
	for i := 0; i < len(p.quoted) && i < 16; i++ {
		p.words[i/8] |= uint64(p.quoted[i]) << (8 * (i % 8))
		p.masks[i/8] |= 0xff << (8 * (i % 8))
	}
	return p
}

type dependent struct {
	slot     int // the member whose presence requires the others
	requires []int
	keyword  string // that states it: dependentRequired or dependencies
}

// A patternProp is one member of patternProperties: the schema of the members whose names
// the pattern matches.
type patternProp struct {
	pattern *pattern
	node    *node
}

type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tObject
	tArray
	tNumber
	tInteger
	tString
)

var typeByName = map[string]typeSet{
	"null": tNull, "boolean": tBoolean, "object": tObject, "array": tArray,
	"number": tNumber, "integer": tInteger, "string": tString,
}

// dialect holds what differs between the JSON Schema drafts.
type dialect struct {
	name          string
	id            string // the keyword that names a resource: "$id", or "id" in draft-04
	since6        bool   // const, contains, propertyNames and boolean schemas exist (draft-06 on)
	boolExclusive bool   // exclusiveMinimum and exclusiveMaximum are booleans modifying minimum and maximum (draft-04)
	tupleItems    bool   // items may be an array, with additionalItems for the rest (before 2020-12)
	refOverrides  bool   // $ref ignores its siblings (draft 7 and earlier)
	formatAsserts bool   // format is an assertion by default (draft 7 and earlier)
	conditionals  bool   // if/then/else exist (draft 7 on)
	// dependentRequired, dependentSchemas, minContains, maxContains and $anchor exist
	// (2019-09 on)
	since2019 bool
	anchor    *regexp.Regexp // the names $anchor takes, as the dialect's meta-schema says
	// $dynamicRef and $dynamicAnchor (2020-12), $recursiveRef and $recursiveAnchor
	// (2019-09) exist (dynamic.go)
	dynamicRefs, recursiveRefs bool
}

// refKeyword reports whether the dialect has the dynamic reference keyword k.
func (d *dialect) refKeyword(k string) bool {
	if k == "$dynamicRef" || k == "$dynamicAnchor" {
		return d.dynamicRefs
	}
	return d.recursiveRefs
}

var (
	draft2020 = &dialect{name: "2020-12", id: "$id", since6: true, conditionals: true, since2019: true, dynamicRefs: true,
		anchor: regexp.MustCompile(`^[A-Za-z_][-A-Za-z0-9._]*$`)}
	draft2019 = &dialect{name: "2019-09", id: "$id", since6: true, tupleItems: true, conditionals: true, since2019: true, recursiveRefs: true,
		anchor: regexp.MustCompile(`^[A-Za-z][-A-Za-z0-9.:_]*$`)}
	draft7 = &dialect{name: "draft-07", id: "$id", since6: true, tupleItems: true, refOverrides: true, formatAsserts: true, conditionals: true}
	draft6 = &dialect{name: "draft-06", id: "$id", since6: true, tupleItems: true, refOverrides: true, formatAsserts: true}
	draft4 = &dialect{name: "draft-04", id: "id", boolExclusive: true, tupleItems: true, refOverrides: true, formatAsserts: true}
)

// dialectOf maps a $schema URI to a dialect.
func dialectOf(uri string) (d *dialect, ok bool) {
	u := strings.TrimSuffix(uri, "#")
	if v, cut := strings.CutPrefix(u, "http://"); cut {
		u = v
	} else {
		u = strings.TrimPrefix(u, "https://")
	}
	switch u {
	case "json-schema.org/schema", "json-schema.org/draft/2020-12/schema":
		return draft2020, true
	case "json-schema.org/draft/2019-09/schema":
		return draft2019, true
	case "json-schema.org/draft-07/schema":
		return draft7, true
	case "json-schema.org/draft-06/schema":
		return draft6, true
	case "json-schema.org/draft-04/schema":
		return draft4, true
	}
	return nil, false
}

type compiler struct {
	cfg     config
	d       *dialect
	root    any
	nodes   map[string]*node // by JSON Pointer
	pending []pendingRef
	// The document's resources, by their URI without fragment: the whole document, under
	// fullURL and under its own $id, and each schema with an $id inside it. base is the URI
	// of the resource being compiled, which a $ref is resolved against.
	resources map[string]resource
	base      *url.URL
	anchors   map[string]resource // by the URI of their resource, '#', and the name
	// present holds, by member name, the schema {"type": "object", "required": [name]}
	// that dependentSchemas test: one for the whole document, so that its results are
	// remembered for every dependentSchemas that tests the name.
	present map[string]*node
	// boolOK: the schema being compiled may be a boolean in draft-04, as the values of
	// additionalProperties and additionalItems may.
	boolOK bool
	// The dynamic scope (dynamic.go): the dynamic anchors of each resource, by the
	// resource's pointer; what the resources entered so far bind; each scope made once.
	dynamic  map[string][]dynamicAnchor
	found    map[string][]dynamicAnchor // by this pass, for the next
	resource string                     // pointer of the resource being compiled
	scope    *scope
	scopes   map[string]*scope
}

type resource struct {
	ptr string
	v   any
}

type pendingRef struct {
	n       *node
	ref     string
	loc     string
	base    *url.URL
	keyword string // $ref, $dynamicRef or $recursiveRef
	scope   *scope // at the reference
}

// parseSchema decodes JSON keeping the order of object members, which the subset needs
// for properties; numbers stay json.Number.
func parseSchema(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := parseValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the schema")
	}
	return v, nil
}

// object is a JSON object with its members in document order.
type object struct {
	keys []string
	vals []any
}

func (o *object) get(k string) (any, bool) {
	for i, key := range o.keys {
		if key == k {
			return o.vals[i], true
		}
	}
	return nil, false
}

const (
	maxSchemaDepth = 512  // nesting of the schema document
	maxInPlace     = 1000 // chain of schemas applied to one value
)

func parseValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxSchemaDepth {
		return nil, fmt.Errorf("schema nests deeper than %d levels", maxSchemaDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := &object{}
		seen := map[string]bool{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key := k.(string)
			if seen[key] {
				return nil, fmt.Errorf("member %q appears twice in one object", key)
			}
			seen[key] = true
			v, err := parseValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			o.keys = append(o.keys, key)
			o.vals = append(o.vals, v)
		}
		_, err = dec.Token()
		return o, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := parseValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err = dec.Token()
		return a, err
	}
	return tok, nil
}

// compileSubset compiles the parsed schema into nodes. A schema with dynamic anchors is
// compiled twice: the first pass finds them, the second resolves every dynamic reference
// (dynamic.go).
func compileSubset(root any, cfg config, d *dialect) (*node, error) {
	c := newCompiler(root, cfg, d, nil)
	if n, err := c.compile(); err != nil || len(c.found) == 0 {
		return n, err
	}
	return newCompiler(root, cfg, d, c.found).compile()
}

// newCompiler prepares the compilation of the document root; dynamic holds the dynamic
// anchors a first pass found, or nil.
func newCompiler(root any, cfg config, d *dialect, dynamic map[string][]dynamicAnchor) *compiler {
	c := &compiler{cfg: cfg, d: d, root: root, nodes: map[string]*node{}, base: documentURL, dynamic: dynamic}
	c.resources = map[string]resource{documentURL.String(): {"", root}}
	c.anchors, c.present, c.scopes = map[string]resource{}, map[string]*node{}, map[string]*scope{}
	c.found = map[string][]dynamicAnchor{}
	c.scope = c.enter(&scope{}, "")
	return c
}

// compile compiles the whole document, then every schema its references reach.
func (c *compiler) compile() (*node, error) {
	n, err := c.schema(c.root, "")
	if err != nil {
		return nil, err
	}
	for len(c.pending) > 0 {
		p := c.pending[0]
		c.pending = c.pending[1:]
		if p.n.ref, err = c.resolve(p); err != nil {
			return nil, err
		}
	}
	if err := checkLoops(n); err != nil {
		return nil, err
	}
	markQuick(c.nodes)
	return n, nil
}

func fragment(ptr string) string { return "#" + ptr }

func schemaErr(ptr, format string, args ...any) error {
	return &SchemaError{Location: fragment(ptr), Reason: fmt.Sprintf(format, args...)}
}

// schema compiles the schema v found at ptr, once per pointer.
func (c *compiler) schema(v any, ptr string) (*node, error) {
	key := ptr
	if c.scope.key != "" {
		key += "\x00" + c.scope.key
		if len(c.nodes) >= maxScopedNodes {
			return nil, schemaErr(ptr, "the dynamic references make more than %d schemas of this one", maxScopedNodes)
		}
	}
	if n, ok := c.nodes[key]; ok {
		return n, nil
	}
	n := newNode(ptr)
	c.nodes[key] = n
	switch v := v.(type) {
	case bool:
		if !c.d.since6 && !c.boolOK {
			return nil, schemaErr(ptr, "a schema must be an object in %s", c.d.name)
		}
		n.reject, n.settled = !v, true
		return n, nil
	case *object:
		if err := c.keywords(n, v, ptr); err != nil {
			return nil, err
		}
		return n, nil
	}
	return nil, schemaErr(ptr, "a schema must be an object or a boolean, not %s", jsonKind(v))
}

func newNode(ptr string) *node {
	return &node{loc: fragment(ptr), minLength: -1, maxLength: -1, maxProps: -1, maxItems: -1, minContains: -1, maxContains: -1}
}

// documentURL is the URI the whole document is known by, as the full engine knows it.
var documentURL, _ = url.Parse(fullURL)

func (c *compiler) keywords(n *node, o *object, ptr string) error {
	r, hasRef := o.get("$ref")
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
	var dynamicRef *node // the schema a $dynamicRef or $recursiveRef leads to, beside a $ref
	if hasRef && c.d.refOverrides {
		if err := c.addRef(n, r, ptr, "$ref"); err != nil {
			return err
		}
		n.refOnly, n.applicators = true, true
		return c.defs(o, ptr)
	}
	var exclusive [2]bool // draft-04: exclusiveMinimum, exclusiveMaximum
	for i, k := range o.keys {
		v := o.vals[i]
		at := ptr + "/" + escapePointer(k)
		var err error
		if !c.d.since6 && (k == "const" || k == "contains" || k == "propertyNames") {
			continue
		}
		switch k {
		case "type":
			err = c.types(n, v, at)
		case "enum":
			arr, ok := v.([]any)
			if !ok {
				return schemaErr(at, "enum must be an array")
			}
			n.enum = newValueSet(arr)
			for _, e := range arr {
				n.enumTexts = append(n.enumTexts, jsonText(e))
			}
		case "const":
			n.konst = newValueSet([]any{v})
			n.konstText = jsonText(v)
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
		case "format":
			s, ok := v.(string)
			if !ok {
				return schemaErr(at, "format must be a string")
			}
			if c.cfg.assertFormat || c.d.formatAsserts {
				n.format, n.checkFormat = s, formatChecker(s)
			}
		case "exclusiveMinimum", "exclusiveMaximum":
			if c.d.boolExclusive {
				b, ok := v.(bool)
				if !ok {
					return schemaErr(at, "%s must be a boolean in %s", k, c.d.name)
				}
				if k == "exclusiveMaximum" {
					exclusive[1] = b
				} else {
					exclusive[0] = b
				}
				continue
			}
			fallthrough
		case "minimum", "maximum", "multipleOf":
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
				n.multipleOf = b
			}
		case "properties":
			err = c.properties(n, v, at)
		case "required":
			var names []string
			if names, err = stringList(v, at); err == nil {
				for _, name := range names {
					n.required = append(n.required, n.slot(name))
				}
				n.objectWork = true
			}
		case "dependentRequired":
			if c.d.since2019 {
				err = c.dependentRequired(n, v, at, k)
			}
		case "dependentSchemas":
			if c.d.since2019 {
				err = c.dependentSchemas(n, v, at)
			}
		case "dependencies":
			err = c.dependencies(n, v, at)
		case "patternProperties":
			err = c.patternProperties(n, v, at)
		case "propertyNames":
			n.names, err = c.schema(v, at)
			n.objectWork = true
		case "additionalProperties":
			n.additional, err = c.schemaOrBool(v, at)
			n.objectWork = true
		case "minProperties":
			n.minProps, err = count(v, at)
			n.objectWork = true
		case "maxProperties":
			n.maxProps, err = count(v, at)
			n.objectWork = true
		case "prefixItems":
			if c.d.tupleItems {
				continue
			}
			n.prefix, err = c.schemaList(v, at)
			n.arrayWork = true
		case "items":
			if arr, ok := v.([]any); ok && c.d.tupleItems {
				n.prefix, err = c.schemaList(arr, at)
				if extra, ok := o.get("additionalItems"); ok && err == nil {
					n.items, err = c.schemaOrBool(extra, ptr+"/additionalItems")
				}
			} else {
				n.items, err = c.schema(v, at)
			}
			n.arrayWork = true
		case "minItems":
			n.minItems, err = count(v, at)
			n.arrayWork = true
		case "maxItems":
			n.maxItems, err = count(v, at)
			n.arrayWork = true
		case "contains":
			n.contains, err = c.schema(v, at)
			n.arrayWork = true
		case "minContains", "maxContains":
			if !c.d.since2019 {
				continue
			}
			var bound int
			if bound, err = count(v, at); k == "minContains" {
				n.minContains = bound
			} else {
				n.maxContains = bound
			}
		case "uniqueItems":
			b, ok := v.(bool)
			if !ok {
				return schemaErr(at, "uniqueItems must be a boolean")
			}
			n.uniqueItem = b
			n.arrayWork = n.arrayWork || b
		case "$ref":
			err = c.addRef(n, v, ptr, k)
			n.applicators = true
		case "$dynamicRef", "$recursiveRef":
			if !c.d.refKeyword(k) {
				continue
			}
			to := n
			if hasRef {
				to = newNode(ptr)
				to.refOnly, to.applicators = true, true
				dynamicRef = to
			}
			err = c.addRef(to, v, ptr, k)
			n.applicators = true
		case "$dynamicAnchor", "$recursiveAnchor":
			if c.d.refKeyword(k) {
				err = c.dynamicAnchor(k, v, o, ptr)
			}
		case "allOf":
			var list []*node
			list, err = c.schemaList(v, at)
			n.allOf = append(n.allOf, list...) // after those of dependentSchemas
			n.applicators = true
		case "anyOf":
			n.anyOf, err = c.schemaList(v, at)
			n.applicators = true
		case "oneOf":
			n.oneOf, err = c.schemaList(v, at)
			n.applicators = true
		case "not":
			n.not, err = c.schema(v, at)
			n.applicators = true
		case "if", "then", "else":
			if !c.d.conditionals {
				continue
			}
			var sub *node
			if sub, err = c.schema(v, at); err == nil {
				switch k {
				case "if":
					n.ifn, n.applicators = sub, true
				case "then":
					n.then = sub
				default:
					n.elsen = sub
				}
			}
		case "unevaluatedProperties", "unevaluatedItems":
			if !c.d.since2019 {
				continue
			}
			var sub *node
			if sub, err = c.schema(v, at); err == nil {
				if k == "unevaluatedProperties" {
					n.unevalProps = sub
				} else {
					n.unevalItems, n.containsEvaluates = sub, !c.d.tupleItems
				}
				n.applicators = true
			}
		case "$anchor":
			if c.d.since2019 {
				err = c.anchor(v, o, ptr)
			}
		case "$schema":
			if _, ok := v.(string); !ok {
				return schemaErr(at, "$schema must be a string")
			}
		}
		if err != nil {
			return err
		}
	}
	if dynamicRef != nil {
		n.allOf = append(n.allOf, dynamicRef)
	}
	if exclusive[0] && n.minimum != nil {
		n.exclusiveMinimum, n.minimum = n.minimum, nil
	}
	if exclusive[1] && n.maximum != nil {
		n.exclusiveMaximum, n.maximum = n.maximum, nil
	}
	if n.ifn != nil && n.then == nil && n.elsen == nil {
		n.bareIf, n.ifn = n.ifn, nil
	}
	if n.ifn == nil {
		n.then, n.elsen = nil, nil
	}
	_, dynamic := o.get("$dynamicRef")
	_, recursive := o.get("$recursiveRef")
	n.derive(hasRef || dynamic && c.d.refKeyword("$dynamicRef") || recursive && c.d.refKeyword("$recursiveRef"))
	return c.defs(o, ptr)
}

// derive sets what follows from n's keywords once they are all read; hasRef says n has a
// $ref.
func (n *node) derive(hasRef bool) {
	n.ownless = !n.ownWork()
	n.refOnly = hasRef && n.ownless && len(n.allOf)+len(n.anyOf)+len(n.oneOf) == 0 && n.not == nil && n.ifn == nil &&
		n.unevalProps == nil && n.unevalItems == nil
	n.stringWork = n.enum != nil || n.konst != nil || n.minLength >= 0 || n.maxLength >= 0 ||
		n.pattern != nil || n.checkFormat != nil
	n.numberWork = n.enum != nil || n.konst != nil || n.minimum != nil || n.maximum != nil ||
		n.exclusiveMinimum != nil || n.exclusiveMaximum != nil || n.multipleOf != nil
	n.intBounds = n.enum == nil && n.konst == nil
	for _, b := range []*bound{n.minimum, n.maximum, n.exclusiveMinimum, n.exclusiveMaximum, n.multipleOf} {
		n.intBounds = n.intBounds && (b == nil || b.isInt)
	}
	if len(n.slots) <= 64 && len(n.dependents) == 0 && n.minProps == 0 && n.maxProps < 0 {
		n.settled = true
		for _, slot := range n.required {
			n.requiredMask |= 1 << slot
		}
	}
	if n.additional != nil && n.additional.reject && len(n.patterns) == 0 {
		n.leads = new([256]bool)
		for _, p := range n.props {
			if p.quoted == "" {
				n.leads = nil
				break
			}
			n.leads[p.quoted[0]] = true
		}
	}
	if len(n.props) > 8 {
		n.propIndex = make(map[string]int, len(n.props))
		for i, p := range n.props {
			n.propIndex[p.name] = i
		}
	}
}

// ownWork reports whether n has a keyword that looks at the value itself.
func (n *node) ownWork() bool {
	return n.reject || n.types != 0 || n.enum != nil || n.konst != nil || n.minLength >= 0 ||
		n.maxLength >= 0 || n.pattern != nil || n.checkFormat != nil || n.minimum != nil ||
		n.maximum != nil || n.exclusiveMinimum != nil || n.exclusiveMaximum != nil ||
		n.multipleOf != nil || n.objectWork || n.arrayWork
}

// defs compiles $defs and definitions so that errors in them surface even when no $ref uses them.
func (c *compiler) defs(o *object, ptr string) error {
	for _, k := range []string{"$defs", "definitions"} {
		v, ok := o.get(k)
		if !ok {
			continue
		}
		defs, ok := v.(*object)
		if !ok {
			return schemaErr(ptr+"/"+k, "%s must be an object", k)
		}
		for i, name := range defs.keys {
			if _, err := c.schema(defs.vals[i], ptr+"/"+k+"/"+escapePointer(name)); err != nil {
				return err
			}
		}
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
	o, ok := v.(*object)
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
	o, ok := v.(*object)
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
	o, ok := v.(*object)
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
	o, ok := v.(*object)
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
	o, ok := v.(*object)
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

// anchor records the schema o at ptr under the name v in the resource being compiled.
func (c *compiler) anchor(v any, o *object, ptr string) error {
	name, ok := v.(string)
	if !ok || !c.d.anchor.MatchString(name) {
		return schemaErr(ptr+"/$anchor", "$anchor must be a name matching %s", c.d.anchor)
	}
	return c.addAnchor(name, o, ptr, ptr+"/$anchor")
}

// namesAnchor reports whether the $id v is an anchor: a plain name after '#', before
// 2019-09.
func (c *compiler) namesAnchor(v any) bool {
	s, _ := v.(string)
	return !c.d.since2019 && len(s) > 1 && s[0] == '#' && s[1] != '/'
}

// addAnchor records the schema o at ptr under the anchor name in the resource being
// compiled; at is where the name is given.
func (c *compiler) addAnchor(name string, o *object, ptr, at string) error {
	key := c.base.String() + "#" + name
	if prev, dup := c.anchors[key]; dup && prev.ptr != ptr {
		return schemaErr(at, "anchor %q is also defined at %s", name, fragment(prev.ptr))
	}
	c.anchors[key] = resource{ptr, o}
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

// identify records the schema o at ptr, whose $id is id, as a resource, and returns its
// URI, the base of the references inside it. An $id that is only a fragment names no
// resource: the base stays; before 2019-09, a plain name there is an anchor.
func (c *compiler) identify(id any, o *object, ptr string) (*url.URL, error) {
	s, ok := id.(string)
	if !ok {
		return nil, schemaErr(ptr+"/"+c.d.id, "%s must be a string", c.d.id)
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, schemaErr(ptr+"/"+c.d.id, "%s %q is not a valid URI reference", c.d.id, s)
	}
	if strings.HasPrefix(s, "#") {
		if c.namesAnchor(id) {
			return c.base, c.addAnchor(u.Fragment, o, ptr, ptr+"/"+c.d.id)
		}
		return c.base, nil
	}
	u = c.base.ResolveReference(u)
	u.Fragment, u.RawFragment = "", ""
	c.resources[u.String()] = resource{ptr, o}
	return u, nil
}

// addRef records that n applies what the reference v, given by keyword, points at.
func (c *compiler) addRef(n *node, v any, ptr, keyword string) error {
	ref, ok := v.(string)
	if !ok {
		return schemaErr(ptr+"/"+keyword, "%s must be a string", keyword)
	}
	c.pending = append(c.pending, pendingRef{n: n, ref: ref, loc: ptr + "/" + keyword, base: c.base, keyword: keyword, scope: c.scope})
	return nil
}

// resolve finds the schema a reference points at, compiling it when first reached, in the
// dynamic scope of the reference extended by the target's resource.
func (c *compiler) resolve(p pendingRef) (*node, error) {
	u, ptr, v, err := c.target(p)
	if err != nil {
		return nil, err
	}
	if p.keyword != "$ref" {
		ptr, v = c.dynamicTarget(p, ptr, v)
	}
	defer func(outer *url.URL, res string, sc *scope) { c.base, c.resource, c.scope = outer, res, sc }(c.base, c.resource, c.scope)
	c.base, c.resource = u, c.resourceOf(ptr)
	c.scope = c.enter(p.scope, c.resource)
	return c.schema(v, ptr)
}

// target finds where the reference p points, statically: the URI of its resource, and the
// pointer and value of the schema. The reference is resolved against the URI of the resource
// it stands in; it must point into this document: the whole, or a resource inside it with
// its own $id. Remote documents are never fetched.
func (c *compiler) target(p pendingRef) (*url.URL, string, any, error) {
	ref, loc := p.ref, p.loc
	u, err := url.Parse(ref)
	if err != nil {
		return nil, "", nil, schemaErr(loc, "%s %q is not a valid URI reference", p.keyword, ref)
	}
	u = p.base.ResolveReference(u)
	frag := u.EscapedFragment()
	u.Fragment, u.RawFragment = "", ""
	res, ok := c.resources[u.String()]
	if !ok {
		return nil, "", nil, schemaErr(loc, "%s %q points at %s, another document: remote references are never fetched", p.keyword, ref, u)
	}
	if frag, err = url.PathUnescape(frag); err != nil {
		return nil, "", nil, schemaErr(loc, "%s %q is not a valid URI fragment", p.keyword, ref)
	}
	if frag != "" && frag[0] != '/' {
		a, ok := c.anchors[u.String()+"#"+frag]
		if !ok {
			return nil, "", nil, schemaErr(loc, "%s %q points at no anchor of %s", p.keyword, ref, u)
		}
		return u, a.ptr, a.v, nil
	}
	v := res.v
	ptr := res.ptr
	if frag != "" {
		for _, tok := range strings.Split(frag[1:], "/") {
			tok = pointerUnescape.Replace(tok)
			ptr += "/" + escapePointer(tok)
			switch cur := v.(type) {
			case *object:
				next, ok := cur.get(tok)
				if !ok {
					return nil, "", nil, schemaErr(loc, "%s %q points at nothing", p.keyword, ref)
				}
				v = next
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(cur) {
					return nil, "", nil, schemaErr(loc, "%s %q points at nothing", p.keyword, ref)
				}
				v = cur[i]
			default:
				return nil, "", nil, schemaErr(loc, "%s %q points at nothing", p.keyword, ref)
			}
		}
	}
	return u, ptr, v, nil
}

func escapePointer(s string) string {
	return pointerToken.Replace(s)
}

var pointerUnescape = strings.NewReplacer("~1", "/", "~0", "~")

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

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case []any:
		return "an array"
	}
	return "a boolean"
}

// jsonText writes a parsed schema value back as compact JSON, members in document order.
func jsonText(v any) string {
	return string(appendJSON(nil, v))
}

func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case json.Number:
		return append(b, v...)
	case string:
		return appendJSONString(b, v)
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e)
		}
		return append(b, ']')
	case *object:
		b = append(b, '{')
		for i, k := range v.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = appendJSON(b, v.vals[i])
		}
		return append(b, '}')
	}
	return b
}

// checkLoops refuses a schema in which some $ref or applicator leads back to itself without
// stepping into a member or an item: validating against it would never end.
func checkLoops(root *node) error {
	const (
		unseen = iota
		active
		done
	)
	state := map[*node]int{}
	var visit func(n *node) error
	inPlace := func(n *node) []*node {
		var out []*node
		if n.ref != nil {
			out = append(out, n.ref)
		}
		out = append(out, n.allOf...)
		out = append(out, n.anyOf...)
		out = append(out, n.oneOf...)
		for _, s := range []*node{n.not, n.ifn, n.then, n.elsen, n.bareIf} {
			if s != nil {
				out = append(out, s)
			}
		}
		return out
	}
	inside := func(n *node) []*node {
		var out []*node
		for _, p := range n.props {
			out = append(out, p.node)
		}
		for _, p := range n.patterns {
			out = append(out, p.node)
		}
		out = append(out, n.prefix...)
		for _, s := range []*node{n.additional, n.items, n.names, n.contains, n.unevalProps, n.unevalItems} {
			if s != nil {
				out = append(out, s)
			}
		}
		return out
	}
	var all []*node
	seen := map[*node]bool{}
	var reach func(n *node)
	reach = func(n *node) {
		if seen[n] {
			return
		}
		seen[n] = true
		all = append(all, n)
		for _, s := range append(inPlace(n), inside(n)...) {
			reach(s)
		}
	}
	reach(root)
	// height is the longest chain of in-place schemas below a node; validation recurses
	// that deep without consuming the arguments, so it is bounded.
	height := map[*node]int{}
	visit = func(n *node) error {
		switch state[n] {
		case active:
			return &SchemaError{Location: n.loc, Reason: "$ref loops back to this schema without descending into the arguments; validation would never end"}
		case done:
			return nil
		}
		state[n] = active
		for _, s := range inPlace(n) {
			if err := visit(s); err != nil {
				return err
			}
			height[n] = max(height[n], height[s]+1)
		}
		if height[n] > maxInPlace {
			return &SchemaError{Location: n.loc, Reason: fmt.Sprintf("$ref, allOf, anyOf, oneOf, not and if nest more than %d deep here", maxInPlace)}
		}
		state[n] = done
		return nil
	}
	for _, n := range all {
		if err := visit(n); err != nil {
			return err
		}
	}
	return nil
}
