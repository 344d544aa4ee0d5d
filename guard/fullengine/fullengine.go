// Package fullengine links the full JSON Schema engine (santhosh-tekuri/jsonschema) into a
// program, for guard.WithFullEngine. Import it for its effect:
//
//	import _ "github.com/mcpvalidate/mcpvalidate/guard/fullengine"
//
// A program that does not import it does not link the engine, and compiling with
// WithFullEngine there fails with an error that says to import this package.
package fullengine

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/mcpvalidate/mcpvalidate/guard/internal/engine"
	"github.com/mcpvalidate/mcpvalidate/guard/internal/regex"
)

func init() { engine.Full = compile }

// noRemote refuses every document the engine asks for: remote $refs are never fetched.
type noRemote struct{}

func (noRemote) Load(string) (any, error) {
	return nil, errors.New("remote references are never fetched")
}

var errNotRegex = errors.New("not a regular expression Go compiles")

type schema struct{ s *jsonschema.Schema }

func compile(text []byte, opts engine.Options) (engine.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		return nil, errors.New("not valid JSON: " + err.Error())
	}
	if root, ok := doc.(map[string]any); ok && opts.DropRefSiblings {
		dropRefSiblings(root)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noRemote{})
	c.DefaultDraft(jsonschema.Draft2020)
	if opts.AssertFormat {
		c.AssertFormat()
	}
	// The engine compiles the schema's patterns with its regexp engine, and checks the
	// "regex" format with it when validating: there only the verdict is needed, which
	// regex.Valid gives in linear time.
	compiled := false
	c.UseRegexpEngine(func(s string) (jsonschema.Regexp, error) {
		if !compiled {
			return regexp.Compile(s)
		}
		if !regex.Valid(s) {
			return nil, errNotRegex
		}
		return nil, nil
	})
	if err := c.AddResource(engine.URL, doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(engine.URL)
	if err != nil {
		return nil, errors.New("the full JSON Schema engine refuses the schema: " + err.Error())
	}
	compiled = true
	// The engine finds $ref loops that never descend (through $anchor, $dynamicRef or
	// $recursiveRef) only when it meets them. Values of every type meet any loop at the root.
	for _, probe := range []any{nil, true, json.Number("0"), "", []any{}, map[string]any{}} {
		if loc, ok := refCycle(sch.Validate(probe)); ok {
			return nil, &engine.CycleError{Location: loc}
		}
	}
	return schema{sch}, nil
}

// refSiblings are the keywords draft-06 and draft-07 added, which the engine applies
// beside a $ref; it ignores those of draft-04 there, as the drafts say of every keyword.
var refSiblings = []string{"const", "contains", "propertyNames", "if", "then", "else"}

// dropRefSiblings deletes refSiblings beside every $ref in the draft-06 or draft-07
// schema v, where the drafts ignore them: schemas are found where those drafts put them.
func dropRefSiblings(v any) {
	switch v := v.(type) {
	case []any: // items, allOf, anyOf, oneOf
		for _, s := range v {
			dropRefSiblings(s)
		}
	case map[string]any:
		if _, ok := v["$ref"]; ok {
			for _, k := range refSiblings {
				delete(v, k)
			}
		}
		for _, k := range []string{"items", "additionalItems", "additionalProperties", "contains", "not",
			"propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf"} {
			dropRefSiblings(v[k])
		}
		for _, k := range []string{"properties", "patternProperties", "definitions", "dependencies"} {
			if m, ok := v[k].(map[string]any); ok {
				for _, s := range m {
					dropRefSiblings(s)
				}
			}
		}
	}
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

func (s schema) Validate(doc any) (f *engine.Failure, panicked bool) {
	defer func() {
		if recover() != nil {
			f, panicked = nil, true
		}
	}()
	var ve *jsonschema.ValidationError
	if !errors.As(s.s.Validate(doc), &ve) {
		return nil, false
	}
	return failure(ve), false
}

// failure turns the engine's error tree into failures, leaving out the values it holds.
func failure(e *jsonschema.ValidationError) *engine.Failure {
	f := &engine.Failure{InstanceLocation: e.InstanceLocation, SchemaURL: e.SchemaURL}
	if kp := e.ErrorKind.KeywordPath(); len(kp) > 0 {
		f.Keyword = kp[len(kp)-1]
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Group, *kind.Schema, *kind.Reference, *kind.AllOf:
		f.Kind = engine.Group
	case *kind.AnyOf:
		f.Kind = engine.AnyOf
	case *kind.OneOf:
		f.Kind, f.Indexes = engine.OneOf, k.Subschemas
	case *kind.Required:
		f.Kind, f.Names = engine.Required, k.Missing
	case *kind.DependentRequired:
		f.Kind, f.Names, f.Prop = engine.DependentRequired, k.Missing, k.Prop
	case *kind.Dependency:
		f.Kind, f.Names, f.Prop = engine.Dependency, k.Missing, k.Prop
	case *kind.AdditionalProperties:
		f.Kind, f.Names = engine.AdditionalProperties, k.Properties
	case *kind.AdditionalItems:
		f.Kind, f.N = engine.AdditionalItems, k.Count
	case *kind.PropertyNames:
		f.Kind, f.Names = engine.PropertyNames, []string{k.Property}
	case *kind.MinProperties:
		f.Kind, f.N = engine.MinProperties, k.Want
	case *kind.MaxProperties:
		f.Kind, f.N = engine.MaxProperties, k.Want
	case *kind.MinItems:
		f.Kind, f.N = engine.MinItems, k.Want
	case *kind.MaxItems:
		f.Kind, f.N = engine.MaxItems, k.Want
	case *kind.UniqueItems:
		f.Kind, f.Indexes = engine.UniqueItems, k.Duplicates[:]
	case *kind.Contains:
		f.Kind = engine.Contains
	case *kind.MinContains:
		f.Kind, f.N = engine.MinContains, k.Want
	case *kind.MaxContains:
		f.Kind, f.N = engine.MaxContains, k.Want
	case *kind.Type:
		f.Kind, f.Types = engine.Type, k.Want
	case *kind.Enum:
		f.Kind, f.Values = engine.Enum, k.Want
	case *kind.Const:
		f.Kind, f.Values = engine.Const, []any{k.Want}
	case *kind.MinLength:
		f.Kind, f.N = engine.MinLength, k.Want
	case *kind.MaxLength:
		f.Kind, f.N = engine.MaxLength, k.Want
	case *kind.Pattern:
		f.Kind, f.Text = engine.Pattern, k.Want
	case *kind.Format:
		f.Kind, f.Text = engine.Format, k.Want
	case *kind.Minimum:
		f.Kind, f.Bound = engine.Minimum, k.Want
	case *kind.Maximum:
		f.Kind, f.Bound = engine.Maximum, k.Want
	case *kind.ExclusiveMinimum:
		f.Kind, f.Bound = engine.ExclusiveMinimum, k.Want
	case *kind.ExclusiveMaximum:
		f.Kind, f.Bound = engine.ExclusiveMaximum, k.Want
	case *kind.MultipleOf:
		f.Kind, f.Bound = engine.MultipleOf, k.Want
	case *kind.Not:
		f.Kind = engine.Not
	case *kind.FalseSchema:
		f.Kind = engine.FalseSchema
	case *kind.RefCycle:
		f.Kind = engine.RefCycle
	}
	if len(e.Causes) > 0 {
		f.Causes = make([]*engine.Failure, len(e.Causes))
		for i, c := range e.Causes {
			f.Causes[i] = failure(c)
		}
	}
	return f
}
