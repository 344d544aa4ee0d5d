package guard

// Exact decimal arithmetic for JSON numbers: comparison, multipleOf, canonical text.

import (
	"bytes"
	"math/big"
	"math/bits"
	"strconv"
)

// number is a JSON number held exactly: (-1 if neg) × 0.digits × 10^exp. digits has no
// leading or trailing zeros and is empty for zero, so every value has one form.
type number struct {
	neg    bool
	digits []byte
	exp    int64
}

// Exponents are clamped far beyond any digit count a message can hold, so comparisons stay
// exact and arithmetic on exp cannot overflow.
const expClamp = 1 << 50

// parseNumber reads a literal already checked against the JSON grammar. The digits are
// written into buf, which is returned for reuse.
func parseNumber(lit []byte, buf []byte) (number, []byte) {
	var n number
	i := 0
	if lit[0] == '-' {
		n.neg = true
		i++
	}
	buf = buf[:0]
	pointAt := -1 // digits before the decimal point, counting leading zeros skipped
	intDigits := 0
	for ; i < len(lit); i++ {
		c := lit[i]
		if c == '.' {
			pointAt = intDigits
			continue
		}
		if c == 'e' || c == 'E' {
			break
		}
		if len(buf) == 0 && c == '0' {
			if pointAt >= 0 {
				intDigits-- // a zero right of the point, before any significant digit
			}
			continue
		}
		buf = append(buf, c)
		if pointAt < 0 {
			intDigits++
		}
	}
	var e10 int64
	if i < len(lit) {
		i++
		eneg := false
		if lit[i] == '+' || lit[i] == '-' {
			eneg = lit[i] == '-'
			i++
		}
		for ; i < len(lit); i++ {
			if e10 < expClamp {
				e10 = e10*10 + int64(lit[i]-'0')
			}
		}
		if eneg {
			e10 = -e10
		}
	}
	for len(buf) > 0 && buf[len(buf)-1] == '0' {
		buf = buf[:len(buf)-1]
	}
	n.digits = buf
	if len(buf) == 0 {
		n.neg = false
		return n, buf
	}
	n.exp = clampExp(int64(intDigits) + e10)
	return n, buf
}

func clampExp(e int64) int64 {
	return max(-expClamp, min(expClamp, e))
}

func (n number) isZero() bool { return len(n.digits) == 0 }

// isInt reports whether n has no fractional part, as JSON Schema counts integers (2.0 and
// 1e2 are integers).
func (n number) isInt() bool { return n.isZero() || int64(len(n.digits)) <= n.exp }

// cmp compares a and b exactly: -1, 0 or +1.
func (a number) cmp(b number) int {
	if a.neg != b.neg {
		if a.neg {
			return -1
		}
		return 1
	}
	m := cmpMagnitude(a, b)
	if a.neg {
		return -m
	}
	return m
}

func cmpMagnitude(a, b number) int {
	switch {
	case a.isZero() && b.isZero():
		return 0
	case a.isZero():
		return -1
	case b.isZero():
		return 1
	case a.exp != b.exp:
		if a.exp < b.exp {
			return -1
		}
		return 1
	}
	return bytes.Compare(a.digits, b.digits)
}

// multipleOf reports whether x is an integer multiple of m (m > 0, prepared by
// asDivisor), using d for the arithmetic beyond a word. It costs time linear in the digits
// of x and logarithmic in the distance of the exponents, whatever the literal.
func (x number) multipleOf(m *bound, d *divisorWork) bool {
	if x.isZero() {
		return true
	}
	// x = X × 10^xe and m = M × 10^me with X and M integers without trailing zeros.
	xe := x.exp - int64(len(x.digits))
	me := m.num.exp - int64(len(m.num.digits))
	k := xe - me
	if k < 0 {
		// X / (M × 10^-k) needs X divisible by 10, and X ends in a non-zero digit.
		return false
	}
	if m.mod != 0 {
		var r uint64
		for _, c := range x.digits {
			hi, lo := bits.Mul64(r, 10)
			lo, carry := bits.Add64(lo, uint64(c-'0'), 0)
			r = bits.Rem64(hi+carry, lo, m.mod)
		}
		hi, lo := bits.Mul64(r, powMod10(k, m.mod))
		return bits.Rem64(hi, lo, m.mod) == 0
	}
	// A divisor of many digits: the remainder of X, taken 18 digits at a time, so that the
	// cost stays linear in the digits of x (big.Int's SetString is quadratic).
	M, r := m.big, &d.r
	r.SetInt64(0)
	for digits := x.digits; len(digits) > 0; {
		w := min(len(digits), 18)
		v, _ := strconv.ParseInt(string(digits[:w]), 10, 64)
		r.Mul(r, d.scale.SetInt64(pow10[w]))
		r.Add(r, d.chunk.SetInt64(v))
		r.Mod(r, M)
		digits = digits[w:]
	}
	if d.powOf != M || d.powK != k {
		d.pow.Exp(d.ten.SetInt64(10), d.k.SetInt64(k), M)
		d.powOf, d.powK = M, k
	}
	return r.Mod(r.Mul(r, &d.pow), M).Sign() == 0
}

// divisorWork is the arithmetic of multipleOf for divisors beyond a word, kept by a call so
// that its numbers reuse the same memory, and 10^k modulo the divisor for the last k.
type divisorWork struct {
	r, chunk, scale, ten, k, pow big.Int
	powOf                        *big.Int
	powK                         int64
}

// powMod10 returns 10^k mod m.
func powMod10(k int64, m uint64) uint64 {
	result, base := uint64(1)%m, uint64(10)%m
	for ; k > 0; k >>= 1 {
		if k&1 == 1 {
			hi, lo := bits.Mul64(result, base)
			result = bits.Rem64(hi, lo, m)
		}
		hi, lo := bits.Mul64(base, base)
		base = bits.Rem64(hi, lo, m)
	}
	return result
}

// appendCanonical writes the one text every equal number shares, for enum and uniqueness keys.
func (n number) appendCanonical(b []byte) []byte {
	if n.neg {
		b = append(b, '-')
	}
	b = append(b, n.digits...)
	b = append(b, 'e')
	return strconv.AppendInt(b, n.exp, 10)
}

// smallInt returns the value of a plain integer literal of at most 18 digits, the common
// case that needs no digit juggling.
func smallInt(lit []byte) (int64, bool) {
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	if len(lit) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range lit {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// smallDecimal reads a literal without exponent and with at most 18 digits as m × 10^-frac.
func smallDecimal(lit []byte) (m int64, frac int, ok bool) {
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	digits, point := 0, -1
	for i, c := range lit {
		switch {
		case c == '.':
			point = i
		case c < '0' || c > '9' || digits == 18:
			return 0, 0, false
		default:
			m = m*10 + int64(c-'0')
			digits++
		}
	}
	if point >= 0 {
		frac = len(lit) - point - 1
	}
	if neg {
		m = -m
	}
	return m, frac, true
}

var pow10 = [...]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// A bound is a numeric keyword's value, kept exactly and, when it is a small integer, as an int64 too.
type bound struct {
	num   number
	small int64
	isInt bool // small holds the value
	text  string
	// A multipleOf's significant digits as an integer, read once (asDivisor): in mod when
	// they fit a word, else in big.
	mod uint64
	big *big.Int
}

func newBound(text string) *bound {
	b := &bound{text: text}
	b.num, _ = parseNumber([]byte(text), nil)
	b.small, b.isInt = smallInt([]byte(text))
	return b
}

// asDivisor reads b's significant digits as the integer multipleOf divides by.
func (b *bound) asDivisor() {
	if len(b.num.digits) <= 19 {
		b.mod, _ = strconv.ParseUint(string(b.num.digits), 10, 64)
	}
	if b.mod == 0 {
		b.big, _ = new(big.Int).SetString(string(b.num.digits), 10)
	}
}
