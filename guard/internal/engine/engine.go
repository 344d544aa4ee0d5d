// Package engine is where the full JSON Schema engine meets package guard: the engine's
// failures as plain data, and the place where package fullengine, once imported, leaves
// its compiler. Package guard maps the failures onto Violations; it never imports the
// engine itself, so a program that does not import fullengine does not link it.
package engine

import "math/big"

// URL is the URI the schema is known by to the engine, which its failures' SchemaURL
// extends with a fragment.
const URL = "mcpvalidate:///inputSchema.json"

// Full compiles schemas for the full engine; nil until package fullengine is imported.
var Full func(schema []byte, opts Options) (Schema, error)

// Options are what the engine is told of a schema besides its text.
type Options struct {
	AssertFormat bool
	// DropRefSiblings asks for the keywords draft-06 and draft-07 added to be deleted
	// beside every $ref, which those drafts ignore there.
	DropRefSiblings bool
}

// A Schema is a compiled schema.
type Schema interface {
	// Validate validates a value decoded as encoding/json does with UseNumber. It returns
	// nil when the value is valid, and reports a panic of the engine as panicked.
	Validate(doc any) (failure *Failure, panicked bool)
}

// A CycleError is a $ref loop that never descends, found at Location (a URI fragment).
type CycleError struct{ Location string }

func (e *CycleError) Error() string { return "$ref loops back at " + e.Location }

// Kind is what a failure is about: the engine's error kinds that guard maps.
type Kind uint8

// The kinds. Other is every kind guard has no closer mapping for; its keyword says which.
const (
	Other Kind = iota
	Group      // a schema failed by its causes: a schema, a $ref, an allOf
	AnyOf
	OneOf
	Required
	DependentRequired
	Dependency
	AdditionalProperties
	AdditionalItems
	PropertyNames
	MinProperties
	MaxProperties
	MinItems
	MaxItems
	UniqueItems
	Contains
	MinContains
	MaxContains
	Type
	Enum
	Const
	MinLength
	MaxLength
	Pattern
	Format
	Minimum
	Maximum
	ExclusiveMinimum
	ExclusiveMaximum
	MultipleOf
	Not
	FalseSchema
	RefCycle
)

// A Failure is one of the engine's errors, with its causes.
type Failure struct {
	Kind             Kind
	InstanceLocation []string // JSON Pointer tokens of the value
	SchemaURL        string   // the failing schema's absolute URL
	Keyword          string   // the keyword that failed, "" when none
	// Names: the missing members (Required, DependentRequired, Dependency), the members
	// not allowed (AdditionalProperties), or the one name refused (PropertyNames).
	Names []string
	Prop  string // the member whose presence requires Names (DependentRequired, Dependency)
	// N: the bound of a count (Min*, Max*, MinContains, MaxContains), or how many items
	// are beyond those allowed (AdditionalItems).
	N       int
	Indexes []int    // OneOf: the subschemas matched; UniqueItems: the two equal items
	Text    string   // the pattern (Pattern) or the format (Format)
	Types   []string // Type: the types wanted
	Values  []any    // Enum: the values allowed; Const: the one value
	Bound   *big.Rat // the number keywords' bound
	Causes  []*Failure
}
