// Code generated from the root package's violation.go by TestMirrorsTheRootPackage; DO NOT EDIT.

package gosdk

// Violation, Kind and Path, the formatters and MetaKey: what a refusal reports, as the core
// package defines them.

import "github.com/mcpvalidate/mcpvalidate/internal/core"

// A Violation is one reason the arguments do not satisfy the schema, as data: Kind (what
// failed), Path (where), Keyword (the schema keyword), and what the schema asks, in the
// fields the Kind fills: Types and Items, Values, Limit, Name, Indexes, Count, Detail,
// Offset; Got (the type sent); under [WithHints], Near, Declared, Optional and Sent; and
// InResult, for a result's violation (WithOutputValidation).
// See [core.Violation] for each field.
type Violation = core.Violation

// Kind names what failed; each kind documents which fields of a Violation it fills (see
// [core.Kind]).
type Kind = core.Kind

// The kinds of violation.
const (
	KindSyntax            = core.KindSyntax
	KindTooDeep           = core.KindTooDeep
	KindDuplicate         = core.KindDuplicate
	KindRequired          = core.KindRequired
	KindDependentRequired = core.KindDependentRequired
	KindAdditional        = core.KindAdditional
	KindAdditionalItem    = core.KindAdditionalItem
	KindForbidden         = core.KindForbidden
	KindType              = core.KindType
	KindEnum              = core.KindEnum
	KindConst             = core.KindConst
	KindMinLength         = core.KindMinLength
	KindMaxLength         = core.KindMaxLength
	KindPattern           = core.KindPattern
	KindFormat            = core.KindFormat
	KindMinimum           = core.KindMinimum
	KindMaximum           = core.KindMaximum
	KindExclusiveMinimum  = core.KindExclusiveMinimum
	KindExclusiveMaximum  = core.KindExclusiveMaximum
	KindMultipleOf        = core.KindMultipleOf
	KindMinItems          = core.KindMinItems
	KindMaxItems          = core.KindMaxItems
	KindUniqueItems       = core.KindUniqueItems
	KindMinProperties     = core.KindMinProperties
	KindMaxProperties     = core.KindMaxProperties
	KindNot               = core.KindNot
	KindNoMatch           = core.KindNoMatch
	KindManyMatch         = core.KindManyMatch
	KindOther             = core.KindOther
	KindTruncated         = core.KindTruncated
)

// Path is the location of a value inside the arguments, from the outside in; its String
// reads a.b[2].c and its Pointer /a/b/2/c (see [core.Path]).
type Path = core.Path

// A PathElem is one step into the arguments: an array item when IsIndex, else a member
// (see [core.PathElem]).
type PathElem = core.PathElem

// A Formatter renders one violation as one line of text for the model that made the call.
// It must not panic; the guard recovers if it does and falls back to [DefaultFormat].
type Formatter = core.Formatter

// Messages renders every violation with f, in order. A nil f means [DefaultFormat].
func Messages(vs []Violation, f Formatter) []string { return core.Messages(vs, f) }

// DefaultFormat is the default style: "missing required property 'location'", "property
// 'days' must be integer". See [core.DefaultFormat] for every message.
func DefaultFormat(v Violation) string { return core.DefaultFormat(v) }

// DetailedFormat is [DefaultFormat] with what the model needs to see what it sent wrong:
// the type it sent and, with [WithHints], the allowed value or declared name it came
// close to. See [core.DetailedFormat].
func DetailedFormat(v Violation) string { return core.DetailedFormat(v) }

// GatewayFormat is the style of MCP gateways that answer in Markdown: "Missing required
// parameter: `location`". See [core.GatewayFormat].
func GatewayFormat(v Violation) string { return core.GatewayFormat(v) }

// MetaKey is the _meta key under which a refusal carries its violations as data, under
// [WithViolationMeta].
const MetaKey = core.MetaKey
