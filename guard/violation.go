package guard

// Violation, Kind and Path: what a refusal reports, as data.

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
)

// Kind names what failed. Every Kind documents which fields of Violation it fills.
type Kind uint8

const (
	// KindSyntax: the arguments are not well-formed JSON. Detail says what is wrong, Offset where.
	KindSyntax Kind = iota + 1
	// KindTooDeep: the arguments nest deeper than Count levels at Path.
	KindTooDeep
	// KindDuplicate: the member at Path appears more than once in its object.
	KindDuplicate
	// KindRequired: the required member at Path is absent; in a result, an empty Path says
	// that structuredContent itself is absent.
	KindRequired
	// KindDependentRequired: the member at Path is absent although its sibling Name, which requires it, is present.
	KindDependentRequired
	// KindAdditional: the member at Path is not declared and the schema allows no other members.
	KindAdditional
	// KindAdditionalItem: the item at Path is beyond the items the schema allows; Limit is how many are
	// allowed, or empty for unevaluatedItems, where which items are allowed depends on them.
	KindAdditionalItem
	// KindForbidden: the schema at Path is false: no value is allowed there.
	KindForbidden
	// KindType: the value at Path has the wrong type; Types lists the types allowed. When
	// the types are those of anyOf or oneOf alternatives, Items lists the types those that
	// allow an array give its items, where they state them.
	KindType
	// KindEnum: the value at Path is not one of Values (JSON texts).
	KindEnum
	// KindConst: the value at Path is not Values[0] (JSON text).
	KindConst
	// KindMinLength: the string at Path has fewer than Limit characters (Unicode code points).
	KindMinLength
	// KindMaxLength: the string at Path has more than Limit characters.
	KindMaxLength
	// KindPattern: the string at Path does not match the regular expression Limit.
	KindPattern
	// KindFormat: the string at Path is not a valid Limit (a format name such as date-time).
	KindFormat
	// KindMinimum: the number at Path is below Limit.
	KindMinimum
	// KindMaximum: the number at Path is above Limit.
	KindMaximum
	// KindExclusiveMinimum: the number at Path is not greater than Limit.
	KindExclusiveMinimum
	// KindExclusiveMaximum: the number at Path is not less than Limit.
	KindExclusiveMaximum
	// KindMultipleOf: the number at Path is not a multiple of Limit.
	KindMultipleOf
	// KindMinItems: the array at Path has fewer than Limit items.
	KindMinItems
	// KindMaxItems: the array at Path has more than Limit items.
	KindMaxItems
	// KindUniqueItems: the array at Path holds equal items at Indexes[0] and Indexes[1].
	KindUniqueItems
	// KindMinProperties: the object at Path has fewer than Limit members.
	KindMinProperties
	// KindMaxProperties: the object at Path has more than Limit members.
	KindMaxProperties
	// KindNot: the value at Path matches the schema under "not". Types or Values describe
	// that schema when it is a plain type or value list.
	KindNot
	// KindNoMatch: the value at Path matches none of the alternatives of Keyword (anyOf or oneOf)
	// and no single alternative came close enough to report its own violations.
	KindNoMatch
	// KindManyMatch: the value at Path matches the oneOf alternatives at Indexes, but must match exactly one.
	KindManyMatch
	// KindOther: a failure with no closer kind: propertyNames refusing the member name at
	// Path, contains, minContains or maxContains refusing the array at Path, or another
	// failure the full JSON Schema engine reports. Keyword names the keyword; Detail
	// describes the failure.
	KindOther
	// KindTruncated: Count more violations were found but not listed.
	KindTruncated
)

var kindNames = [...]string{
	KindSyntax: "syntax", KindTooDeep: "too-deep", KindDuplicate: "duplicate",
	KindRequired: "required", KindDependentRequired: "dependent-required", KindAdditional: "additional",
	KindAdditionalItem: "additional-item", KindForbidden: "forbidden", KindType: "type", KindEnum: "enum",
	KindConst: "const", KindMinLength: "min-length", KindMaxLength: "max-length", KindPattern: "pattern",
	KindFormat: "format", KindMinimum: "minimum", KindMaximum: "maximum",
	KindExclusiveMinimum: "exclusive-minimum", KindExclusiveMaximum: "exclusive-maximum",
	KindMultipleOf: "multiple-of", KindMinItems: "min-items", KindMaxItems: "max-items",
	KindUniqueItems: "unique-items", KindMinProperties: "min-properties", KindMaxProperties: "max-properties",
	KindNot: "not", KindNoMatch: "no-match", KindManyMatch: "many-match", KindOther: "other",
	KindTruncated: "truncated",
}

// String returns the kind's short name, such as "required" or "type".
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// A Violation is one reason the arguments (or a result, when InResult) do not satisfy the
// schema. It holds data, not
// text: a Formatter renders it. Argument values are never copied into it; Values and Limit
// come from the schema.
type Violation struct {
	Kind    Kind     // what failed; it says which other fields are filled
	Path    Path     // where in the arguments; empty for the arguments themselves
	Keyword string   // the schema keyword that failed, such as "enum" or "required"
	Types   []string // KindType, KindNot: JSON Schema type names
	Items   []string // KindType: type names of the items of an array allowed in Types
	Values  []string // KindEnum, KindConst, KindNot: allowed (or, for KindNot, excluded) values as JSON text
	Limit   string   // the bound, pattern or format name, as the schema gives it
	Name    string   // KindDependentRequired: the member that requires the missing one
	Indexes []int    // KindUniqueItems: the equal items; KindManyMatch: the matching alternatives
	Count   int      // KindTruncated: violations left out; KindTooDeep: the depth limit
	Detail  string   // KindSyntax, KindOther: what is wrong, in words
	Offset  int      // KindSyntax: byte offset of the error in the arguments

	// What was sent, as far as a reader needs it to repair the call, never a value (Got
	// always, the others under WithHints):
	Got      string   // KindType: the JSON type of the value ("integer" for a whole number)
	Near     string   // KindEnum: the allowed value (JSON text) the string matches but for case and surrounding spaces; KindAdditional: the unused declared name the unexpected one is close to
	Declared []string // KindAdditional: the names the closed object declares, when it declares at most 8, on the first of its unexpected members with no Near
	Optional bool     // KindType: the value is null and the member may be left out instead
	Sent     string   // KindRequired: the name sent in the same object in place of the missing one: one the object expects under no name or pattern, written with the same words in another case or spelling, or one letter apart, and no other declared name or name sent as close

	// InResult says that the violation is in a tool's result, its structuredContent
	// (WithOutputValidation), rather than in a call's arguments; Path starts inside
	// structuredContent.
	InResult bool
}

// A PathElem is one step into the arguments: an array item when IsIndex, else a member.
// The zero PathElem is the member with the empty name.
type PathElem struct {
	Name    string // the member's name
	Index   int    // the item's index, from 0
	IsIndex bool
}

// Path is the location of a value inside the arguments, from the outside in.
type Path []PathElem

// String renders the path as a.b[2].c. A name that is not plain (ASCII letters, digits,
// '_' and '-') is written ["..."], a JSON string literal in which every character a reader
// could misread is escaped (see appendVisible), so that every path reads back to one name
// and stays on one line. A name longer than 64 characters shows its first 32 and its last
// 16 as two literals around the count of the others, ["<first 32>"…(15952 characters
// not shown)…"<last 16>"], which no name can be; a path of more than 20 steps shows its
// first 10 and last 10 around the count of the others: a.b[…12 levels not shown…].c.
func (p Path) String() string {
	if len(p) == 1 && !p[0].IsIndex && plainName(p[0].Name) {
		return p[0].Name
	}
	var buf [64]byte
	b := buf[:0]
	for i := 0; i < len(p); i++ {
		if len(p) > pathShown && i == pathEnds {
			b = append(b, "[…"...)
			b = strconv.AppendInt(b, int64(len(p)-2*pathEnds), 10)
			b = append(b, " levels not shown…]"...)
			i = len(p) - pathEnds
		}
		switch e := p[i]; {
		case e.IsIndex:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(e.Index), 10)
			b = append(b, ']')
		case plainName(e.Name):
			if i > 0 {
				b = append(b, '.')
			}
			b = append(b, e.Name...)
		default:
			b = append(b, '[')
			b = appendQuotedName(b, e.Name)
			b = append(b, ']')
		}
	}
	return string(b)
}

// where is the path a message names: for a result, from the result down, through
// structuredContent.
func (v Violation) where() Path {
	if !v.InResult {
		return v.Path
	}
	return append(Path{{Name: "structuredContent"}}, v.Path...)
}

// Pointer renders the path as a JSON Pointer (RFC 6901), such as /a/b/2/c.
func (p Path) Pointer() string {
	var b strings.Builder
	for _, e := range p {
		b.WriteByte('/')
		if e.IsIndex {
			b.WriteString(strconv.Itoa(e.Index))
			continue
		}
		b.WriteString(pointerToken.Replace(e.Name))
	}
	return b.String()
}

// pointerToken escapes a member name as a JSON Pointer token.
var pointerToken = strings.NewReplacer("~", "~0", "/", "~1")

// appendJSONString appends s as a JSON string literal that stays on one line: control
// characters, quotes and backslashes are escaped, invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendJSONText(b, s)
	return append(b, '"')
}

// appendJSONText appends s as the inside of a JSON string literal.
func appendJSONText(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); {
		if jsontext.Plain(s[i]) { // printable ASCII but '"' and '\\': a run of them is copied
			j := i + 1
			for j < len(s) && jsontext.Plain(s[j]) {
				j++
			}
			b = append(b, s[i:j]...)
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if e, ok := shortEscape(r); ok {
			b = append(b, '\\', e)
			continue
		}
		switch {
		case r < 0x20 || 0x7f <= r && r <= 0x9f || r == 0x2028 || r == 0x2029:
			b = append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return b
}

// shortEscape returns the letter of r's two-character JSON escape, if it has one.
func shortEscape(r rune) (byte, bool) {
	switch r {
	case '"', '\\':
		return byte(r), true
	case '\n':
		return 'n', true
	case '\r':
		return 'r', true
	case '\t':
		return 't', true
	}
	return 0, false
}
