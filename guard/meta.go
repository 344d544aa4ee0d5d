package guard

import (
	"encoding/json"
	"strconv"
	"sync"

	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
)

// This file is the guard's room: a refusal's violations as data, for clients that act
// on them rather than read the text. They travel in the result's _meta, under MetaKey:
//
//	{"of": "arguments", "violations": [
//	   {"pointer": "/days", "kind": "type", "keyword": "type", "types": ["integer"],
//	    "message": "property 'days' must be integer"}],
//	 "notShown": 0}
//
// Each violation gives the JSON Pointer of the value (into the arguments, or into the
// result's structuredContent when "of" is "result"), its Kind, the schema keyword, and
// what the schema asks as the schema states it: "types" (and "itemTypes"), "values" (JSON
// values), "limit" (a number for numeric bounds, else a string), "name", "indexes",
// "count", "offset"; "got", the JSON type that was sent where a type failed; "sent", the
// name sent in place of a missing required one; then the message the guard's formatter
// renders. Member names, in "pointer", "name" and "sent", escape as
// \uXXXX what messages escape (bidi controls, zero-width and other invisible characters),
// which decodes to the exact name. No argument or result
// value is ever copied into it. Like the text, it stays within maxRefusal bytes: the
// violations that do not fit whole are counted in "notShown".

// MetaKey is the _meta key under which a refusal of arguments or of a result carries its
// violations as data. Its prefix follows the MCP specification's rule for _meta names.
const MetaKey = "com.github.mcpvalidate/violations"

// Meta renders the verdict's violations as the value of [MetaKey], or nil when it has
// none or the guard was made without [WithViolationMeta]. It gives the violations whose
// messages the verdict shows, as long as each fits whole.
func (vd Verdict) Meta() json.RawMessage {
	if len(vd.vs) == 0 || !vd.meta {
		return nil
	}
	scratch := metaScratch.Get().(*[]byte)
	b := (*scratch)[:0]
	b = append(b, `{"of":`...)
	b = strconv.AppendQuote(b, string(vd.of))
	b = append(b, `,"violations":[`...)
	const closing = len(`],"notShown":`) + 20 + len(`}`)
	shown, notShown := 0, 0
	for i, v := range vd.vs {
		if v.Kind == KindTruncated {
			notShown += v.Count
			continue
		}
		mark := len(b)
		if shown > 0 {
			b = append(b, ',')
		}
		fits := false
		if i < len(vd.shown) {
			b, fits = appendViolation(b, v, vd.shown[i], maxRefusal-closing)
		}
		if !fits {
			b = b[:mark]
			notShown++
			continue
		}
		shown++
	}
	b = append(b, `],"notShown":`...)
	b = strconv.AppendInt(b, int64(notShown), 10)
	b = append(b, '}')
	// The data travels through three of mcp-go's marshals, each of which copies it: it
	// is made in scratch and kept at its size.
	meta := append(make(json.RawMessage, 0, len(b)), b...)
	if cap(b) <= 2*maxRefusal { // a violation with many long values may pass it
		*scratch = b
		metaScratch.Put(scratch)
	}
	return meta
}

// metaScratch holds the buffers Meta writes in, of at most 2*maxRefusal bytes.
var metaScratch = sync.Pool{New: func() any { return new([]byte) }}

// appendViolation appends v as data, with its message, and reports whether b stays within
// most bytes.
func appendViolation(b []byte, v Violation, message string, most int) ([]byte, bool) {
	b = append(b, `{"pointer":`...)
	b, fits := appendPointer(b, v.Path, most)
	if !fits {
		return b, false
	}
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, v.Kind.String())
	if v.Keyword != "" {
		b = append(b, `,"keyword":`...)
		b = appendJSONString(b, v.Keyword)
	}
	b = appendStrings(b, "types", v.Types)
	b = appendStrings(b, "itemTypes", v.Items)
	if v.Got != "" {
		b = append(b, `,"got":`...)
		b = appendJSONString(b, v.Got)
	}
	if len(v.Values) > 0 { // JSON texts the engines made from the schema
		b = append(b, `,"values":[`...)
		for i, x := range v.Values {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, x...)
		}
		b = append(b, ']')
	}
	if v.Limit != "" {
		b = append(b, `,"limit":`...)
		if numericLimit(v.Kind) && json.Valid([]byte(v.Limit)) { // not the full engine's 1/3
			b = append(b, v.Limit...)
		} else {
			b = appendJSONString(b, v.Limit)
		}
	}
	if v.Name != "" {
		b = append(b, `,"name":`...)
		b = appendVisible(b, v.Name)
	}
	if v.Sent != "" {
		b = append(b, `,"sent":`...)
		b = appendVisible(b, v.Sent)
	}
	if len(v.Indexes) > 0 {
		b = append(b, `,"indexes":[`...)
		for i, n := range v.Indexes {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(n), 10)
		}
		b = append(b, ']')
	}
	switch v.Kind {
	case KindTooDeep:
		b = append(b, `,"count":`...)
		b = strconv.AppendInt(b, int64(v.Count), 10)
	case KindSyntax:
		b = append(b, `,"offset":`...)
		b = strconv.AppendInt(b, int64(v.Offset), 10)
	}
	b = append(b, `,"message":`...)
	b = appendJSONString(b, message)
	b = append(b, '}')
	return b, len(b) <= most
}

// appendPointer appends the JSON Pointer of p as a JSON string, giving up as soon as b
// would pass most bytes.
func appendPointer(b []byte, p Path, most int) ([]byte, bool) {
	b = append(b, '"')
	for _, e := range p {
		if len(b) > most {
			return b, false
		}
		b = append(b, '/')
		if e.IsIndex {
			b = strconv.AppendInt(b, int64(e.Index), 10)
			continue
		}
		if len(b)+len(e.Name) > most {
			return b, false
		}
		b = appendVisibleText(b, pointerToken.Replace(e.Name))
	}
	b = append(b, '"')
	return b, len(b) <= most
}

// appendVisibleText appends s as the inside of a JSON string literal, escaping as \uXXXX
// what a message escapes in a name (see appendVisible): the decoded string is still s, and
// a reader of the raw text sees which characters it holds.
func appendVisibleText(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if !jsontext.Plain(s[i]) {
			mark := len(b)
			b = appendVisible(b, s)
			return append(b[:mark], b[mark+1:len(b)-1]...) // without its quotes
		}
	}
	return append(b, s...)
}

func appendStrings(b []byte, key string, s []string) []byte {
	if len(s) == 0 {
		return b
	}
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `":[`...)
	for i, x := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, x)
	}
	return append(b, ']')
}

// numericLimit reports whether a kind's Limit is a number: a bound or a count.
func numericLimit(k Kind) bool {
	switch k {
	case KindPattern, KindFormat:
		return false
	}
	return true
}
