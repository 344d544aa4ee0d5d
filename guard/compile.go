package guard

// Compiling a schema into nodes: parsing it with the order of its members kept, the
// dialect, $id and anchors, $ref targets, and the loops refused.

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

	"github.com/mcpvalidate/mcpvalidate/guard/internal/engine"
)

// A SchemaError says why a schema cannot be compiled and where: Location is a JSON Pointer
// fragment into the schema, such as #/properties/days/minimum.
type SchemaError struct {
	Location string // where in the schema
	Reason   string // what is wrong there
}

// Error says where the schema is wrong and why.
func (e *SchemaError) Error() string {
	return "invalid schema at " + e.Location + ": " + e.Reason
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
	// engine.URL and under its own $id, and each schema with an $id inside it. base is the URI
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
	dynamic     map[string][]dynamicAnchor
	found       map[string][]dynamicAnchor // by this pass, for the next
	resource    string                     // pointer of the resource being compiled
	resourceAt  map[string]bool            // the pointers of the resources
	scope       *scope
	scopes      map[string]*scope // by the numbers of the anchors they bind
	anchorsSeen int
	entries     map[entry]*scope
	values      canonTable // of every const and enum
	// work counts the bytes the nodes compiled so far hold and what making the scopes
	// cost; limit, when not 0, bounds it. held counts the bytes the finished tree holds.
	work, limit, held int64
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

// schemaObject is an object of a parsed schema, its members in document order.
type schemaObject struct {
	keys []string
	vals []any
}

// get returns the member k of o; a nil o has no members.
func (o *schemaObject) get(k string) (any, bool) {
	if o == nil {
		return nil, false
	}
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
		o := &schemaObject{}
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

// compileSubset compiles the parsed schema into nodes and the ids of their const and enum
// values, and counts the bytes the nodes hold. A schema with dynamic anchors is compiled
// twice: the first pass finds them and every resource and anchor, and compiles every
// schema once, so that any error surfaces; the second resolves every dynamic reference
// (dynamic.go), compiling only what the root reaches, within a multiple of what the first
// pass's nodes hold.
func compileSubset(root any, cfg config, d *dialect) (*node, int64, canonTable, error) {
	first := newCompiler(root, cfg, d, nil)
	if n, err := first.run(); err != nil || len(first.found) == 0 {
		return n, first.held, first.values, err
	}
	c := newCompiler(root, cfg, d, first.found)
	c.resources, c.anchors, c.resourceAt = first.resources, first.anchors, first.resourceAt
	c.limit = scopeGrowth*first.work + scopeFloor
	n, err := c.run()
	return n, c.held, c.values, err
}

// newCompiler prepares the compilation of the document root; dynamic holds the dynamic
// anchors a first pass found, or nil.
func newCompiler(root any, cfg config, d *dialect, dynamic map[string][]dynamicAnchor) *compiler {
	c := &compiler{cfg: cfg, d: d, root: root, nodes: map[string]*node{}, base: documentURL, dynamic: dynamic, values: canonTable{}}
	c.resources = map[string]resource{documentURL.String(): {"", root}}
	c.resourceAt = map[string]bool{"": true}
	c.anchors, c.present, c.scopes = map[string]resource{}, map[string]*node{}, map[string]*scope{}
	c.found, c.entries = map[string][]dynamicAnchor{}, map[entry]*scope{}
	c.scope = c.enter(&scope{}, "")
	return c
}

// run compiles the whole document, then every schema its references reach.
func (c *compiler) run() (*node, error) {
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
	all := reachable(n)
	if err := checkLoops(all); err != nil {
		return nil, err
	}
	markQuick(c.nodes)
	for _, n := range all {
		c.held += n.size()
	}
	return n, nil
}

func fragment(ptr string) string { return "#" + ptr }

func schemaErr(ptr, format string, args ...any) error {
	return &SchemaError{Location: fragment(ptr), Reason: fmt.Sprintf(format, args...)}
}

// schema compiles the schema v found at ptr, once per pointer.
func (c *compiler) schema(v any, ptr string) (*node, error) {
	key := c.nodeKey(ptr)
	if n, ok := c.nodes[key]; ok {
		return n, nil
	}
	if c.limit > 0 && c.work > c.limit {
		return nil, schemaErr(ptr, "the dynamic references make this schema compile to more than %d times what it compiles to without them", scopeGrowth)
	}
	n := newNode(ptr)
	c.nodes[key] = n
	switch v := v.(type) {
	case bool:
		if !c.d.since6 && !c.boolOK {
			return nil, schemaErr(ptr, "a schema must be an object in %s", c.d.name)
		}
		n.reject, n.requiredOnly = !v, true
		c.work += n.size()
		return n, nil
	case *schemaObject:
		if err := c.keywords(n, v, ptr); err != nil {
			return nil, err
		}
		c.work += n.size()
		return n, nil
	}
	return nil, schemaErr(ptr, "a schema must be an object or a boolean, not %s", withArticles([]string{jsonTypeOf(v)}))
}

func newNode(ptr string) *node {
	return &node{loc: fragment(ptr), extraItems: "items", minLength: -1, maxLength: -1, maxProps: -1, maxItems: -1, minContains: -1, maxContains: -1}
}

// documentURL is the URI the whole document is known by, as the full engine knows it.
var documentURL, _ = url.Parse(engine.URL)

// derive sets what follows from n's keywords once they are all read: the plan the passes
// follow. hasRef says a reference applies.
func (n *node) derive(hasRef bool) {
	switch n.keywords & stringKeywords {
	case 0:
		n.stringCheck = anyString
	case keywordsOf("enum"):
		n.stringCheck = enumString
	case keywordsOf("minLength"), keywordsOf("maxLength"), keywordsOf("minLength", "maxLength"):
		n.stringCheck = lengthString
	default:
		n.stringCheck = kindString
	}
	n.numberWork = n.keywords&numberKeywords != 0
	n.inPlaceOnly = !(n.reject || n.types != 0 || n.stringCheck != anyString || n.numberWork || n.objectWork || n.arrayWork)
	n.refOnly = hasRef && n.inPlaceOnly && len(n.allOf)+len(n.anyOf)+len(n.oneOf) == 0 && n.not == nil && n.ifn == nil &&
		n.unevalProps == nil && n.unevalItems == nil
	n.intBounds = n.enum == nil && n.constant == nil
	for _, b := range []*bound{n.minimum, n.maximum, n.exclusiveMinimum, n.exclusiveMaximum, n.multipleOf} {
		n.intBounds = n.intBounds && (b == nil || b.isInt)
	}
	if len(n.slots) <= 64 && len(n.dependents) == 0 && n.minProps == 0 && n.maxProps < 0 {
		n.requiredOnly = true
		for _, slot := range n.required {
			n.requiredMask |= 1 << slot
		}
	}
	if n.additional != nil && n.additional.reject && len(n.patterns) == 0 {
		n.firstBytes = new([256]bool)
		for _, p := range n.props {
			if p.quoted == "" {
				n.firstBytes = nil
				break
			}
			n.firstBytes[p.quoted[0]] = true
		}
	}
	if len(n.props) > 8 {
		n.propIndex = make(map[string]int, len(n.props))
		for i, p := range n.props {
			n.propIndex[p.name] = i
		}
	}
}

// defs compiles $defs and definitions so that errors in them surface even when no $ref
// uses them; the second pass of a schema with dynamic anchors leaves them to the
// references.
func (c *compiler) defs(o *schemaObject, ptr string) error {
	if c.dynamic != nil {
		return nil
	}
	for _, k := range []string{"$defs", "definitions"} {
		v, ok := o.get(k)
		if !ok {
			continue
		}
		defs, ok := v.(*schemaObject)
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

// anchor records the schema o at ptr under the name v in the resource being compiled.
func (c *compiler) anchor(v any, o *schemaObject, ptr string) error {
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
// compiled; at is where the name is given. The second pass of a schema with dynamic
// anchors has the first pass's anchors.
func (c *compiler) addAnchor(name string, o *schemaObject, ptr, at string) error {
	if c.dynamic != nil {
		return nil
	}
	key := c.base.String() + "#" + name
	if prev, dup := c.anchors[key]; dup && prev.ptr != ptr {
		return schemaErr(at, "anchor %q is also defined at %s", name, fragment(prev.ptr))
	}
	c.anchors[key] = resource{ptr, o}
	return nil
}

// identify records the schema o at ptr, whose $id is id, as a resource, and returns its
// URI, the base of the references inside it. An $id that is only a fragment names no
// resource: the base stays; before 2019-09, a plain name there is an anchor.
func (c *compiler) identify(id any, o *schemaObject, ptr string) (*url.URL, error) {
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
	c.resourceAt[ptr] = true
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
	v, ptr, ok := atPointer(res.v, frag)
	if !ok {
		return nil, "", nil, schemaErr(loc, "%s %q points at nothing", p.keyword, ref)
	}
	return u, res.ptr + ptr, v, nil
}

// atPointer follows the JSON Pointer ptr ("", or tokens each after a '/') into the parsed
// schema value v. It returns what is there and the pointer written canonically, or false
// when nothing is.
func atPointer(v any, ptr string) (any, string, bool) {
	if ptr == "" {
		return v, "", true
	}
	if ptr[0] != '/' {
		return nil, "", false
	}
	var canon strings.Builder
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = pointerUnescape.Replace(tok)
		canon.WriteString("/" + escapePointer(tok))
		switch cur := v.(type) {
		case *schemaObject:
			next, ok := cur.get(tok)
			if !ok {
				return nil, "", false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur) {
				return nil, "", false
			}
			v = cur[i]
		default:
			return nil, "", false
		}
	}
	return v, canon.String(), true
}

func escapePointer(s string) string {
	return pointerToken.Replace(s)
}

var pointerUnescape = strings.NewReplacer("~1", "/", "~0", "~")

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
	case *schemaObject:
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

// reachable lists the nodes validation can reach from root: those a compiled schema keeps.
func reachable(root *node) []*node {
	var all []*node
	seen := map[*node]bool{}
	var reach func(n *node)
	reach = func(n *node) {
		if seen[n] {
			return
		}
		seen[n] = true
		all = append(all, n)
		for _, s := range append(n.inPlace(), n.inside()...) {
			reach(s)
		}
	}
	reach(root)
	return all
}

// checkLoops refuses a schema in which some $ref or applicator leads back to itself without
// stepping into a member or an item: validating against it would never end. all lists the
// schema's nodes.
func checkLoops(all []*node) error {
	const (
		unseen = iota
		active
		done
	)
	state := map[*node]int{}
	var visit func(n *node) error
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
		for _, s := range n.inPlace() {
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
