package guard

// Violations rendered as text: the formatters and the phrases they share.

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
)

// A Formatter renders one violation as one line of text for the model that made the call.
// It must not panic; the guard recovers if it does and falls back to DefaultFormat.
// Whatever it returns, the guard keeps a refusal within 8 KB: the messages that do
// not fit are counted, not shown, and the formatter is not called for them.
type Formatter func(Violation) string

// Messages renders every violation with f, in order. A nil f means DefaultFormat.
func Messages(vs []Violation, f Formatter) []string {
	if f == nil {
		f = DefaultFormat
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = f(v)
	}
	return out
}

// DefaultFormat is the default style:
//
//	missing required property 'location'
//	property 'days' must be integer
//	property 'units' must be one of ['c', 'f']
//	unexpected property 'x'
//
// Paths into nested values read customer.addresses[2].zip_code.
//
// A result's violations name their paths from the result down: missing required property
// 'structuredContent.station'.
func DefaultFormat(v Violation) string {
	v.Path = v.where()
	p := quoted(v.Path)
	switch v.Kind {
	case KindSyntax:
		return notJSON(v)
	case KindTruncated:
		return "and " + plural(v.Count, "more violation")
	case KindRequired:
		return "missing required property " + p
	case KindDependentRequired:
		return "missing required property " + p + " (required when " + quoted(sibling(v.Path, v.Name)) + " is present)"
	case KindAdditional:
		return "unexpected property " + p
	case KindAdditionalItem:
		if v.Limit == "" { // unevaluatedItems: what is allowed depends on the items
			return "unexpected item " + p
		}
		return "unexpected item " + p + ": at most " + plural(atoi(v.Limit), "item") + " allowed"
	case KindDuplicate:
		return "property " + p + " appears more than once"
	}
	if len(v.Path) > 0 {
		return "property " + p + " " + predicate(v)
	}
	if v.Kind == KindType {
		return "arguments must be " + withArticles(v.Types)
	}
	// The arguments are plural: "arguments are invalid", "arguments nest deeper".
	pred := predicate(v)
	for _, verb := range [][2]string{{"is ", "are "}, {"nests ", "nest "}, {"matches ", "match "}} {
		if rest, ok := strings.CutPrefix(pred, verb[0]); ok {
			pred = verb[1] + rest
		}
	}
	return "arguments " + pred
}

// DetailedFormat is DefaultFormat with what the model needs to see what it sent wrong,
// never quoting a value it sent:
//
//	property 'days' must be integer, not string
//	property 'limit' must be integer, not null (leave it out: it is optional)
//	property 'units' must be one of ['celsius', 'fahrenheit'] (did you mean 'celsius'?)
//	unexpected property 'loction' (did you mean 'location'?)
//	unexpected property 'x' (the properties are 'location', 'days')
//	missing required property 'pullNumber' (sent 'pull_number')
//
// It names the JSON type sent where a type failed and, with what [WithHints] finds: the
// allowed value that a string sent matches but for case and surrounding spaces; for an
// unexpected name, the unused declared name it is close to, or else, once per object, the
// names of a closed object that declares few; for a missing required name, the name sent
// in its place, unless an unexpected name's hint already pairs them.
func DetailedFormat(v Violation) string {
	m := DefaultFormat(v)
	switch {
	case v.Kind == KindType && v.Got != "" && v.Optional:
		return m + ", not null (leave it out: it is optional)"
	case v.Kind == KindType && v.Got != "":
		return m + ", not " + v.Got
	case v.Near != "" && v.Kind == KindEnum:
		return m + " (did you mean " + renderValue(v.Near) + "?)"
	case v.Near != "" && v.Kind == KindAdditional:
		return m + " (did you mean " + quoted(sibling(v.Path, v.Near)) + "?)"
	case v.Sent != "" && v.Kind == KindRequired:
		return m + " (sent " + quoted(sibling(v.where(), v.Sent)) + ")"
	case v.Kind == KindAdditional && len(v.Declared) > 0:
		names := make([]string, len(v.Declared))
		for i, d := range v.Declared {
			names[i] = quoted(Path{{Name: d}})
		}
		return m + " (the properties are " + strings.Join(names, ", ") + ")"
	}
	return m
}

// GatewayFormat is the style of MCP gateways that answer in Markdown:
//
//	Missing required parameter: `location`
//	Unknown parameter: `x`
//	Invalid type for `days`: expected integer
//	expected an object                      (for arguments that are not an object)
//
// Other failures read "Invalid value for `path`: " followed by what the value must be. A
// result's violations name fields rather than parameters, from the result down: Unknown
// field: `structuredContent.wind`.
func GatewayFormat(v Violation) string {
	v.Path = v.where()
	p := "`" + subject(v.Path) + "`"
	noun := "parameter"
	if v.InResult {
		noun = "field"
	}
	switch v.Kind {
	case KindSyntax:
		return notJSON(v)
	case KindTruncated:
		return "and " + plural(v.Count, "more error")
	case KindRequired:
		return "Missing required " + noun + ": " + p
	case KindDependentRequired:
		return "Missing required " + noun + ": " + p + " (required with `" + subject(sibling(v.Path, v.Name)) + "`)"
	case KindAdditional, KindAdditionalItem:
		return "Unknown " + noun + ": " + p
	case KindDuplicate:
		return "Duplicate " + noun + ": " + p
	case KindType:
		if len(v.Path) == 0 {
			return "expected " + withArticles(v.Types)
		}
		return "Invalid type for " + p + ": expected " + orList(arrayOf(v.Types, v.Items))
	}
	pred := predicate(v)
	if v.Kind == KindOther {
		pred = v.Detail // "is invalid" says nothing after "Invalid value"
	}
	if len(v.Path) == 0 {
		return "Invalid arguments: " + pred
	}
	return "Invalid value for " + p + ": " + pred
}

// notJSON is the message of KindSyntax.
func notJSON(v Violation) string {
	whole := "arguments are"
	if v.InResult {
		whole = "structuredContent is"
	}
	return whole + " not valid JSON: " + v.Detail + " at offset " + strconv.Itoa(v.Offset)
}

// predicate says what the value must be, for the kinds that constrain a present value.
func predicate(v Violation) string {
	switch v.Kind {
	case KindType:
		return "must be " + orList(arrayOf(v.Types, v.Items))
	case KindEnum:
		return "must be one of " + valueList(v.Values)
	case KindConst:
		return "must equal " + renderValue(first(v.Values))
	case KindMinLength:
		return "must be at least " + plural(atoi(v.Limit), "character") + " long"
	case KindMaxLength:
		return "must be at most " + plural(atoi(v.Limit), "character") + " long"
	case KindPattern:
		return "must match the pattern " + patternText(v.Limit)
	case KindFormat:
		return "must be a valid " + v.Limit
	case KindMinimum:
		return "must be at least " + clip(v.Limit)
	case KindMaximum:
		return "must be at most " + clip(v.Limit)
	case KindExclusiveMinimum:
		return "must be greater than " + clip(v.Limit)
	case KindExclusiveMaximum:
		return "must be less than " + clip(v.Limit)
	case KindMultipleOf:
		return "must be a multiple of " + clip(v.Limit)
	case KindMinItems:
		return "must have at least " + plural(atoi(v.Limit), "item")
	case KindMaxItems:
		return "must have at most " + plural(atoi(v.Limit), "item")
	case KindUniqueItems:
		if len(v.Indexes) == 2 {
			return "must not contain equal items (items " + strconv.Itoa(v.Indexes[0]) + " and " + strconv.Itoa(v.Indexes[1]) + " are equal)"
		}
		return "must not contain equal items"
	case KindMinProperties:
		return "must have at least " + plural(atoi(v.Limit), "property")
	case KindMaxProperties:
		return "must have at most " + plural(atoi(v.Limit), "property")
	case KindForbidden:
		return "is not allowed"
	case KindTooDeep:
		return "nests deeper than the limit of " + strconv.Itoa(v.Count) + " levels"
	case KindNot:
		switch {
		case len(v.Types) > 0:
			return "must not be " + orList(v.Types)
		case len(v.Values) > 0:
			return "must not be one of " + valueList(v.Values)
		}
		return "must not match the schema under 'not'"
	case KindNoMatch:
		if v.Keyword == "oneOf" {
			return "must match exactly one of the alternatives in oneOf, and matches none"
		}
		return "must match at least one of the alternatives in " + v.Keyword
	case KindManyMatch:
		return "matches more than one alternative in oneOf (" + andList(v.Indexes) + ") but must match exactly one"
	case KindOther:
		return "is invalid: " + v.Detail
	}
	return "is invalid (" + v.Kind.String() + ")"
}

// subject is the text of the path a message is about, a.b[2]; a top-level name that is
// not plain is its JSON string literal alone, "a.b", not a path's ["a.b"].
func subject(p Path) string {
	if len(p) == 1 && !p[0].IsIndex && !plainName(p[0].Name) {
		return string(appendQuotedName(nil, p[0].Name))
	}
	return p.String()
}

// quoted is the subject in single quotes, unless it is a string literal, which quotes itself.
func quoted(p Path) string {
	s := subject(p)
	if strings.HasPrefix(s, `"`) {
		return s
	}
	return "'" + s + "'"
}

// sibling is the path of the member name beside the last step of p.
func sibling(p Path, name string) Path {
	s := append(Path(nil), p...)
	if len(s) > 0 {
		s = s[:len(s)-1]
	}
	return append(s, PathElem{Name: name})
}

func first(s []string) string {
	if len(s) == 0 {
		return "null"
	}
	return s[0]
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func plural(n int, noun string) string {
	s := strconv.Itoa(n) + " " + noun
	if n == 1 {
		return s
	}
	if strings.HasSuffix(noun, "y") {
		return s[:len(s)-1] + "ies"
	}
	return s + "s"
}

func orList(items []string) string { return joinList(items, "or") }

func joinList(items []string, conj string) string {
	switch len(items) {
	case 0:
		return "nothing"
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}

// arrayOf writes "array" in types as "array of strings", or "array (of string or
// integer)", when items names what it holds.
func arrayOf(types, items []string) []string {
	i := slices.Index(types, "array")
	if i < 0 || len(items) == 0 {
		return types
	}
	held := "array of " + items[0] + "s"
	if len(items) > 1 {
		held = "array (of " + orList(items) + ")"
	}
	return slices.Replace(slices.Clone(types), i, i+1, held)
}

func withArticles(types []string) string {
	out := make([]string, len(types))
	for i, t := range types {
		switch t {
		case "object", "array", "integer":
			out[i] = "an " + t
		case "null":
			out[i] = t
		default:
			out[i] = "a " + t
		}
	}
	return orList(out)
}

func andList(ix []int) string {
	s := make([]string, len(ix))
	for i, n := range ix {
		s[i] = "#" + strconv.Itoa(n)
	}
	return joinList(s, "and")
}

// valueList renders allowed values; a long list is cut short so the message stays readable.
func valueList(values []string) string {
	const shown = 25
	out := make([]string, 0, min(len(values), shown)+1)
	for _, v := range values[:min(len(values), shown)] {
		out = append(out, renderValue(v))
	}
	if len(values) > shown {
		out = append(out, "… "+strconv.Itoa(len(values)-shown)+" more")
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// renderValue writes a schema value given as JSON text: strings in single quotes, anything
// else as its JSON text; either cut short when very long.
func renderValue(text string) string {
	if len(text) < 2 || text[0] != '"' || text[len(text)-1] != '"' {
		return clip(text)
	}
	if inner := text[1 : len(text)-1]; plainValue(inner) {
		return "'" + clip(inner) + "'"
	}
	if !json.Valid([]byte(text)) {
		return clip(text)
	}
	q := appendJSONString(nil, string(jsontext.DecodeString([]byte(text[1:len(text)-1]), nil)))
	inner := strings.ReplaceAll(string(q[1:len(q)-1]), `\"`, `"`)
	return "'" + clip(strings.ReplaceAll(inner, "'", `\'`)) + "'"
}

// plainValue reports whether a string value's JSON text is the value and needs no escape
// in single quotes: printable ASCII but quotes and backslashes.
func plainValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if !jsontext.Plain(s[i]) || s[i] == '\'' {
			return false
		}
	}
	return true
}

// patternText shows a pattern as the schema states it, in single quotes: '^\d{4}$'. Only
// what would not print, or not on one line, is escaped as \uXXXX, which no RE2 pattern
// can hold as text (RE2 has no \u escape).
func patternText(p string) string {
	var b []byte
	for _, r := range p {
		if r < ' ' || r == 0x7f || r >= utf8.RuneSelf && invisible(r) {
			b = appendEscape(b, r)
		} else {
			b = utf8.AppendRune(b, r)
		}
	}
	return "'" + clip(string(b)) + "'"
}

// clip cuts a schema value's text to a length a message can carry.
func clip(s string) string { return clipTo(s, 200) }

// clipTo cuts s to at most most bytes, at a character's start, followed by "…" when cut.
func clipTo(s string, most int) string {
	if len(s) <= most {
		return s
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
