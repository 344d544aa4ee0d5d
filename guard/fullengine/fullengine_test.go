package fullengine

import (
	"errors"
	"reflect"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/mcpvalidate/mcpvalidate/guard/internal/engine"
)

// TestFailureLeavesValuesOut: the engine's errors become failures with the schema's side
// only; the value refused (each kind's Got) is never carried.
func TestFailureLeavesValuesOut(t *testing.T) {
	e := &jsonschema.ValidationError{SchemaURL: engine.URL + "#", ErrorKind: &kind.Group{}, Causes: []*jsonschema.ValidationError{
		{InstanceLocation: []string{"a"}, SchemaURL: engine.URL + "#/properties/a", ErrorKind: &kind.Enum{Got: "secret", Want: []any{"x"}}},
		{InstanceLocation: []string{"b"}, SchemaURL: engine.URL + "#/properties/b", ErrorKind: &kind.ContentEncoding{Want: "base64", Err: errors.New("secret")}},
		{SchemaURL: engine.URL + "#", ErrorKind: &kind.Required{Missing: []string{"c"}}},
	}}
	want := &engine.Failure{Kind: engine.Group, SchemaURL: engine.URL + "#", Causes: []*engine.Failure{
		{Kind: engine.Enum, InstanceLocation: []string{"a"}, SchemaURL: engine.URL + "#/properties/a", Keyword: "enum", Values: []any{"x"}},
		{Kind: engine.Other, InstanceLocation: []string{"b"}, SchemaURL: engine.URL + "#/properties/b", Keyword: "contentEncoding"},
		{Kind: engine.Required, SchemaURL: engine.URL + "#", Keyword: "required", Names: []string{"c"}},
	}}
	if got := failure(e); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// TestCompileRefusals: what the engine refuses is said, and a $ref loop is found where it is.
func TestCompileRefusals(t *testing.T) {
	if _, err := compile([]byte(`{"$ref":"https://example.com/s.json"}`), engine.Options{}); err == nil {
		t.Error("a remote $ref compiled")
	}
	// A loop through $dynamicRef, which the engine meets only when validating.
	_, err := compile([]byte(`{"$dynamicAnchor":"n","$defs":{"d":{"$dynamicRef":"#n"}},"$ref":"#/$defs/d"}`), engine.Options{})
	var cycle *engine.CycleError
	if !errors.As(err, &cycle) || cycle.Location == "" {
		t.Errorf("got %v, want a CycleError", err)
	}
}
