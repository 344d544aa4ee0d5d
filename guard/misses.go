package guard

import (
	"encoding/json"
	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
	"strconv"
)

// What a refusal's log line tells of what was sent besides paths: the types sent where
// others are allowed, which are not values, and, under WithEnumMisses, the values sent
// outside an enum: model output, read again from the arguments of a refused call and
// shown as names are, for the log alone, never put in a violation, a refusal's text or
// its _meta.

// A typeMiss is a value of the wrong type, as a log line shows it.
type typeMiss struct {
	Path    string   `json:"path"`
	Sent    string   `json:"sent"`    // the JSON type sent (Violation.Got)
	Allowed []string `json:"allowed"` // the types the schema allows there
}

// typeMisses returns the types sent where others are allowed, of the violations vs, at
// most maxEnumMisses of them.
func typeMisses(vs []Violation) []typeMiss {
	var misses []typeMiss
	for _, v := range vs {
		if v.Kind == KindType && v.Got != "" && len(misses) < maxEnumMisses {
			misses = append(misses, typeMiss{Path: v.where().String(), Sent: v.Got, Allowed: v.Types})
		}
	}
	return misses
}

// An enumMiss is one value sent outside an enum, as a log line shows it.
type enumMiss struct {
	Path string `json:"path"` // as the line's paths show it
	Sent string `json:"sent"` // the value, shown by shownValue
}

// maxEnumMisses bounds the misses of each sort one log line carries, and so the times a
// refusal's arguments are read again for them.
const maxEnumMisses = 16

// WithEnumMisses makes the line [WithLogger] writes for a refused call carry the values
// that the call sent outside an enum, under "enum_misses": each with its path, as the
// line's paths show it, and the value: a string quoted and shown as names are (escaped,
// at most 64 characters, a longer one elided), a number or literal as sent (elided past
// 64 characters), an object or array as {…} or […]; at most 16 a line. They are model
// output, which may hold what a user told the model, so the option is off by default. The
// values go to the log alone: never to a refusal's text or _meta, nor to an Event field
// an observer can read.
func WithEnumMisses() Option { return guardOption(func(c *config) { c.enumMisses = true }) }

// enumMisses returns the values sent outside an enum that vs report, read from the raw
// arguments args or, when there are none, from the decoded value.
func enumMisses(args []byte, value any, vs []Violation) []enumMiss {
	var misses []enumMiss
	for _, v := range vs {
		if v.Kind != KindEnum || v.InResult {
			continue
		}
		if args == nil {
			b, err := json.Marshal(value)
			if err != nil {
				return nil
			}
			args = b
		}
		if at, ok := valueAt(args, v.Path); ok {
			misses = append(misses, enumMiss{Path: v.where().String(), Sent: shownValue(args, at)})
			if len(misses) == maxEnumMisses {
				break
			}
		}
	}
	return misses
}

// shownValue shows the value at args[at], which is well-formed, on one line in a bounded
// number of characters.
func shownValue(args []byte, at int) string {
	switch args[at] {
	case '"':
		t, _, _ := jsontext.ScanString(args, at)
		var buf []byte
		return string(appendQuotedName(nil, string(t.Text(args, &buf))))
	case '{':
		return "{…}"
	case '[':
		return "[…]"
	}
	c := cursor{data: args, pos: at}
	c.skipValue()
	token := string(args[at:c.pos])
	if len(token) <= nameShown { // a number or literal: ASCII
		return token
	}
	return token[:nameHead] + "…(" + strconv.Itoa(len(token)-nameHead-nameTail) + " characters not shown)…" + token[len(token)-nameTail:]
}
