package guard

import (
	"iter"

	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
)

// The arguments are read in place by the scanner (package jsontext), which reports a
// syntax error as a problem and where it is; state turns it into the call's one
// KindSyntax violation.

// A cursor stands in JSON text: the text, where it stands, and a string decoded from it.
// Its own methods only read, and expect text the scanner has found well-formed; state is
// a cursor with a validation around it.
type cursor struct {
	data []byte
	pos  int
	buf  []byte
}

func (c *cursor) skipWS() {
	c.pos = jsontext.SkipSpace(c.data, c.pos)
}

// name reads the member name at c.pos, and moves past the colon after it to the value.
func (c *cursor) name() jsontext.String {
	t, end, _ := jsontext.ScanString(c.data, c.pos)
	c.pos = jsontext.SkipSpace(c.data, jsontext.SkipSpace(c.data, end)+1)
	return t
}

// skipValue moves past the value at c.pos.
func (c *cursor) skipValue() {
	c.pos = jsontext.SkipValue(c.data, jsontext.SkipSpace(c.data, c.pos))
}

// eachMember yields the name of each member of the well-formed object at c.pos, with c at
// the member's value, which the loop must move past; c ends past the object.
func (c *cursor) eachMember() iter.Seq[jsontext.String] {
	return func(yield func(jsontext.String) bool) {
		c.pos++
		for c.peek() == '"' {
			if !yield(c.name()) {
				return
			}
			if c.peek() == ',' {
				c.pos++
			}
		}
		c.pos++
	}
}

// eachItem yields the index of each item of the well-formed array at c.pos, with c at the
// item, which the loop must move past; c ends past the array.
func (c *cursor) eachItem() iter.Seq[int] {
	return func(yield func(int) bool) {
		c.pos++
		for i := 0; c.peek() != ']' && c.peek() != 0; i++ {
			if !yield(i) {
				return
			}
			if c.peek() == ',' {
				c.pos++
			}
		}
		c.pos++
	}
}

// peek returns the next non-space byte, or 0 at the end of the input.
func (c *cursor) peek() byte {
	c.skipWS()
	if d, i := c.data, c.pos; i < len(d) {
		return d[i]
	}
	return 0
}

// jsonType names the type of the value at args[i]; a number is an integer when it is whole.
func jsonType(args []byte, i int) string {
	switch args[i] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if _, whole, _ := jsontext.ScanNumber(args, i); whole {
		return "integer"
	}
	return "number"
}
