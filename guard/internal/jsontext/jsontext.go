// Package jsontext reads JSON text in place, one token at a time, the way encoding/json's
// scanner does, never building a tree: the one reader of the validator (package guard)
// and of the proxy (package guard/proxy). Its functions only read, and report a syntax
// error as a problem and where it is.
package jsontext

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// String is a string token: the bytes between its quotes and what decoding it would need.
type String struct {
	Start, End int
	Escaped    bool // holds a backslash escape
	High       bool // holds bytes >= 0x80, which may be invalid UTF-8
}

// SkipSpace returns the index of the first byte at or after i that is not space.
func SkipSpace(d []byte, i int) int {
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

// ScanString reads the string token whose opening quote is at d[i]. It returns the token,
// the index after its closing quote, or where it went wrong and why. Plain runs are crossed
// eight bytes at a time.
func ScanString(d []byte, i int) (t String, end int, problem string) {
	i++
	t.Start = i
	for {
		if i = PlainRun(d, i); i >= len(d) {
			return t, len(d), "unterminated string"
		}
		switch c := d[i]; {
		case c == '"':
			t.End = i
			return t, i + 1, ""
		case c == '\\':
			t.Escaped = true
			i++
			if i >= len(d) {
				continue
			}
			switch d[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(d) || !IsHex(d[i+1]) || !IsHex(d[i+2]) || !IsHex(d[i+3]) || !IsHex(d[i+4]) {
					return t, i, "invalid \\u escape in string"
				}
				i += 4
			default:
				return t, i, "invalid escape in string"
			}
		case c < 0x20:
			return t, i, "control character in string"
		default: // c >= 0x80
			t.High = true
		}
		i++
	}
}

// PlainRun returns where the run of plain bytes at d[i] ends: at the first byte that is
// not plain, or at the end of d.
func PlainRun(d []byte, i int) int {
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

func IsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// DecodeString decodes the inside of a well-formed JSON string literal.
func DecodeString(raw []byte, b []byte) []byte {
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

// ScanNumber reads the number token starting at d[i]. It returns the index after it and
// whether it is written without fraction or exponent, or where it went wrong and why.
func ScanNumber(d []byte, i int) (end int, whole bool, problem string) {
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

// Text returns the string as encoding/json would hand it to a handler: escapes decoded,
// lone surrogates and invalid UTF-8 replaced by U+FFFD. Plain strings cost nothing; others
// are decoded into buf.
func (t String) Text(data []byte, buf *[]byte) []byte {
	raw := data[t.Start:t.End]
	if t.Verbatim(data) {
		return raw
	}
	*buf = DecodeString(raw, (*buf)[:0])
	return *buf
}

// Verbatim reports whether the string's text is its bytes as written.
func (t String) Verbatim(data []byte) bool {
	return !t.Escaped && (!t.High || utf8.Valid(data[t.Start:t.End]))
}

// Plain reports whether c can stand in a string as it is: not '"', '\\', a control
// character or a byte of a multi-byte sequence.
func Plain(c byte) bool { return plain[c] }

// SkipValue returns the end of the value that starts at d[i], in text known to be
// well-formed.
func SkipValue(d []byte, i int) int {
	if i >= len(d) {
		return i
	}
	switch d[i] {
	case '{', '[':
		depth := 0
		for ; i < len(d); i++ {
			switch d[i] {
			case '"':
				_, end, _ := ScanString(d, i)
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(d)
	case '"':
		_, end, _ := ScanString(d, i)
		return end
	case 't', 'n':
		return i + len("true")
	case 'f':
		return i + len("false")
	}
	end, _, _ := ScanNumber(d, i)
	return end
}

// Valid reports whether b is one JSON value, with white space around it, at any depth:
// encoding/json's json.Valid stops at 10,000 levels of nesting, which JavaScript's
// JSON.parse, among others, reads. Its memory is a bit a level of nesting.
func Valid(b []byte) bool {
	end := ValidValue(b, SkipSpace(b, 0))
	return end >= 0 && SkipSpace(b, end) == len(b)
}

// ValidValue returns the end of the JSON value that starts at b[i], at any depth, as
// Valid reads it; -1 when there is none.
func ValidValue(b []byte, i int) int {
	var open bitStack // the open containers: true for an object
	for {
		// A value at b[i].
		if i >= len(b) {
			return -1
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			i = SkipSpace(b, i+1)
			if i < len(b) && (c == '{' && b[i] == '}' || c == '[' && b[i] == ']') {
				i++
				break
			}
			open.push(c == '{')
			if c == '{' {
				if i = memberStart(b, i); i < 0 {
					return -1
				}
			}
			continue
		case c == '"':
			_, end, problem := ScanString(b, i)
			if problem != "" {
				return -1
			}
			i = end
		case c == '-' || c >= '0' && c <= '9':
			end, _, problem := ScanNumber(b, i)
			if problem != "" {
				return -1
			}
			i = end
		case bytes.HasPrefix(b[i:], []byte("true")):
			i += 4
		case bytes.HasPrefix(b[i:], []byte("false")):
			i += 5
		case bytes.HasPrefix(b[i:], []byte("null")):
			i += 4
		default:
			return -1
		}
		// After a value: close containers, or go on to the next member or item.
		for {
			if open.n == 0 {
				return i
			}
			i = SkipSpace(b, i)
			if i >= len(b) {
				return -1
			}
			object := open.top()
			if object && b[i] == '}' || !object && b[i] == ']' {
				open.pop()
				i++
				continue
			}
			if b[i] != ',' {
				return -1
			}
			i = SkipSpace(b, i+1)
			if object {
				if i = memberStart(b, i); i < 0 {
					return -1
				}
			}
			break
		}
	}
}

// memberStart checks a member's name and colon at b[i] and returns where its value
// starts, or -1.
func memberStart(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	_, end, problem := ScanString(b, i)
	if problem != "" {
		return -1
	}
	i = SkipSpace(b, end)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return SkipSpace(b, i+1)
}

// bitStack is a stack of bits, 64 to a word: the first 256 in place, without an
// allocation, the others in more.
type bitStack struct {
	first [4]uint64
	more  []uint64
	n     int
}

// word returns the word of bit i, which exists once a bit below it is pushed.
func (s *bitStack) word(i int) *uint64 {
	if w := i / 64; w < len(s.first) {
		return &s.first[w]
	}
	return &s.more[i/64-len(s.first)]
}

func (s *bitStack) push(bit bool) {
	if w := s.n / 64; w >= len(s.first) && w-len(s.first) == len(s.more) {
		s.more = append(s.more, 0)
	}
	w := s.word(s.n)
	*w &^= 1 << (s.n % 64)
	if bit {
		*w |= 1 << (s.n % 64)
	}
	s.n++
}

func (s *bitStack) pop() { s.n-- }

func (s *bitStack) top() bool { return *s.word(s.n - 1)&(1<<((s.n-1)%64)) != 0 }
