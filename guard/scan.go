package guard

import (
	"encoding/binary"
	"iter"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// The scanner: JSON read in place, one token at a time, the way encoding/json's scanner
// does, never building a tree. Its functions only read, and report a syntax error as a
// problem and where it is; state turns it into the call's one KindSyntax violation.

// str is a string token: the bytes between its quotes and what decoding it would need.
type str struct {
	start, end int
	escaped    bool // holds a backslash escape
	high       bool // holds bytes >= 0x80, which may be invalid UTF-8
}

// A cursor stands in JSON text: the text, where it stands, and a string decoded from it.
// Its own methods only read, and expect text the scanner has found well-formed; state is
// a cursor with a validation around it.
type cursor struct {
	data []byte
	pos  int
	buf  []byte
}

func (c *cursor) skipWS() {
	c.pos = skipSpace(c.data, c.pos)
}

// name reads the member name at c.pos, and moves past the colon after it to the value.
func (c *cursor) name() str {
	t, end, _ := scanString(c.data, c.pos)
	c.pos = skipSpace(c.data, skipSpace(c.data, end)+1)
	return t
}

// skipValue moves past the value at c.pos.
func (c *cursor) skipValue() {
	switch d := c.data; c.peek() {
	case '{', '[':
		depth := 0
		for i := c.pos; i < len(d); i++ {
			switch d[i] {
			case '"':
				_, end, _ := scanString(d, i)
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					c.pos = i + 1
					return
				}
			}
		}
		c.pos = len(d)
	case '"':
		_, c.pos, _ = scanString(d, c.pos)
	case 't', 'n':
		c.pos += len("true")
	case 'f':
		c.pos += len("false")
	default:
		c.pos, _, _ = scanNumber(d, c.pos)
	}
}

// eachMember yields the name of each member of the well-formed object at c.pos, with c at
// the member's value, which the loop must move past; c ends past the object.
func (c *cursor) eachMember() iter.Seq[str] {
	return func(yield func(str) bool) {
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

// skipSpace returns the index of the first byte at or after i that is not space.
func skipSpace(d []byte, i int) int {
	if uint(i) < uint(len(d)) && d[i] > ' ' {
		return i // no space is above ' ': compact JSON costs one comparison
	}
	if uint(i+1) < uint(len(d)) && d[i] == ' ' && d[i+1] > ' ' {
		return i + 1 // one space, as after a colon or a comma: two
	}
	for i < len(d) && space[d[i]] {
		i++
	}
	return i
}

var space = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// plain marks the bytes a string can hold without a second look: not '"', '\\', a control
// character or a byte of a multi-byte sequence.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// peek returns the next non-space byte, or 0 at the end of the input.
func (c *cursor) peek() byte {
	c.skipWS()
	if d, i := c.data, c.pos; i < len(d) {
		return d[i]
	}
	return 0
}

// scanString reads the string token whose opening quote is at d[i]. It returns the token,
// the index after its closing quote, or where it went wrong and why. Plain runs are crossed
// eight bytes at a time.
func scanString(d []byte, i int) (t str, end int, problem string) {
	i++
	t.start = i
	for {
		if i = plainRun(d, i); i >= len(d) {
			return t, len(d), "unterminated string"
		}
		switch c := d[i]; {
		case c == '"':
			t.end = i
			return t, i + 1, ""
		case c == '\\':
			t.escaped = true
			i++
			if i >= len(d) {
				continue
			}
			switch d[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(d) || !isHex(d[i+1]) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) {
					return t, i, "invalid \\u escape in string"
				}
				i += 4
			default:
				return t, i, "invalid escape in string"
			}
		case c < 0x20:
			return t, i, "control character in string"
		default: // c >= 0x80
			t.high = true
		}
		i++
	}
}

// plainRun returns where the run of plain bytes at d[i] ends: at the first byte that is
// not plain, or at the end of d.
func plainRun(d []byte, i int) int {
	for i+8 <= len(d) {
		if m := special(binary.LittleEndian.Uint64(d[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(d) && plain[d[i]] {
		i++
	}
	return i
}

// special marks, in the high bit of each byte, the bytes of w that are not plain. Only the
// lowest mark is exact: a borrow may mark bytes above it too.
func special(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := w^(ones*'"'), w^(ones*'\\')
	return (w | (w - ones*0x20) | (quote - ones) | (backslash - ones)) & highs
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// text returns the string as encoding/json would hand it to a handler: escapes decoded,
// lone surrogates and invalid UTF-8 replaced by U+FFFD. Plain strings cost nothing; others
// are decoded into buf.
func (t str) text(data []byte, buf *[]byte) []byte {
	raw := data[t.start:t.end]
	if t.verbatim(data) {
		return raw
	}
	*buf = decodeString(raw, (*buf)[:0])
	return *buf
}

// verbatim reports whether the string's text is its bytes as written.
func (t str) verbatim(data []byte) bool {
	return !t.escaped && (!t.high || utf8.Valid(data[t.start:t.end]))
}

// decodeString decodes the inside of a well-formed JSON string literal.
func decodeString(raw []byte, b []byte) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			if c < utf8.RuneSelf {
				b = append(b, c)
				i++
				continue
			}
			r, size := utf8.DecodeRune(raw[i:])
			b = utf8.AppendRune(b, r) // RuneError for each invalid byte, as encoding/json does
			i += size
			continue
		}
		switch raw[i+1] {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := hex4(raw[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					r2 = hex4(raw[i+2:])
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			b = utf8.AppendRune(b, r)
			continue
		default: // '"', '\\', '/'
			b = append(b, raw[i+1])
		}
		i += 2
	}
	return b
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// scanNumber reads the number token starting at d[i]. It returns the index after it and
// whether it is written without fraction or exponent, or where it went wrong and why.
func scanNumber(d []byte, i int) (end int, whole bool, problem string) {
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i]-'1' < 9:
		i++
		for i < len(d) && d[i]-'0' < 10 {
			i++
		}
	default:
		return i, false, "invalid number"
	}
	whole = true
	if i < len(d) && d[i] == '.' {
		i++
		j := i
		for i < len(d) && d[i]-'0' < 10 {
			i++
		}
		if i == j {
			return i, false, "invalid number: no digit after the decimal point"
		}
		whole = false
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := i
		for i < len(d) && d[i]-'0' < 10 {
			i++
		}
		if i == j {
			return i, false, "invalid number: no digit in the exponent"
		}
		whole = false
	}
	return i, whole, ""
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
	if _, whole, _ := scanNumber(args, i); whole {
		return "integer"
	}
	return "number"
}
