// Code generated from the root package's subset.go by TestMirrorsTheRootPackage; DO NOT EDIT.

package gosdk

// Compile, Validator and Lint: the strict subset validator of the core package, for a
// schema checked outside a server.

import "github.com/mcpvalidate/mcpvalidate/internal/core"

// A Validator checks tool arguments against one compiled inputSchema: Validate takes the
// raw bytes, ValidateValue decoded arguments. It is immutable and safe for concurrent use.
// See [core.Validator].
type Validator = core.Validator

// Compile compiles a tool's inputSchema (JSON Schema 2020-12; 2019-09, draft-07, draft-06
// and draft-04 when its $schema names them). A schema that cannot be compiled gives a
// [*SchemaError]. See [core.Compile].
func Compile(schema []byte, opts ...Option) (*Validator, error) { return core.Compile(schema, opts...) }

// A SchemaError says why a schema cannot be compiled and where: Location is a JSON Pointer
// fragment into the schema, such as #/properties/days/minimum.
type SchemaError = core.SchemaError

// Lint reviews a tool's inputSchema the way a strict reviewer would: open objects, unbounded
// arrays, identifiers without a pattern, values a description lists without an enum. See
// [core.Lint].
func Lint(schema []byte, opts ...Option) ([]Advice, error) { return core.Lint(schema, opts...) }

// Advice is one remark of [Lint] on a schema: where, which rule, and what to change.
type Advice = core.Advice
