package gosdk

// A typed tool's arguments made ready for decoding into In: the input schema's defaults
// written in, and numbers that are whole but written with a fraction or an exponent
// rewritten as integers, all in the bytes the guard checked. go-sdk does the same by
// decoding the arguments into a map[string]any and marshalling it again, which carries
// every number through a float64: an int64 field then receives 9007199254740992 for
// 9007199254740993. Here every other byte reaches json.Unmarshal as sent, so an integer
// field receives exactly the integer that was checked.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// defaults are the members an object gets when they are absent, and the defaults inside
// those that are present, as jsonschema-go's Resolved.ApplyDefaults finds them: through
// properties only, skipping required ones.
type defaults struct {
	index map[string]int
	props []propDefault
	size  int // the bytes written into an object that has none of the members, nested ones included
}

type propDefault struct {
	member []byte    // the member's name, quoted, and a colon
	fill   []byte    // the value of the absent member
	inner  *defaults // nil when the member's value has no defaults of its own
}

// defaultsOf returns the defaults below s, or nil when there are none. A property with no
// default of its own but with defaults below it is filled with an object that holds them,
// as ApplyDefaults does.
func defaultsOf(s *jsonschema.Schema) (*defaults, error) {
	d := &defaults{index: map[string]int{}}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		sub := s.Properties[name]
		if slices.Contains(s.Required, name) || !hasDefaults(sub) {
			continue
		}
		inner, err := defaultsOf(sub)
		if err != nil {
			return nil, err
		}
		fill := json.RawMessage(emptyObject)
		if sub.Default != nil {
			fill = sub.Default
		}
		if fill, err = prepare(fill, inner); err != nil {
			return nil, fmt.Errorf("default of %q: %w", name, err)
		}
		member, err := json.Marshal(name)
		if err != nil {
			return nil, err
		}
		d.index[name] = len(d.props)
		d.props = append(d.props, propDefault{member: append(member, ':'), fill: fill, inner: inner})
		d.size += len(member) + 2 + len(fill) + inner.sizeOf()
	}
	if len(d.props) == 0 {
		return nil, nil
	}
	return d, nil
}

func hasDefaults(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	if s.Default != nil {
		return true
	}
	for _, sub := range s.Properties {
		if hasDefaults(sub) {
			return true
		}
	}
	return false
}

var emptyObject = []byte("{}")

// prepareArguments returns the arguments ready for decoding into In: an object with d's
// defaults written in and its whole numbers written as integers. Absent arguments are {}.
// So are null ones when d writes defaults in; otherwise null is kept, and decoded as go-sdk
// decodes it: a map, pointer or interface In receives nil, a struct its zero value. It
// returns args itself when nothing needs writing.
func prepareArguments(args []byte, d *defaults) ([]byte, error) {
	v := bytes.Trim(args, " \t\n\r")
	null := isNull(v)
	switch {
	case len(v) == 0 || null && d != nil:
		args = emptyObject
	case !null && v[0] != '{':
		return nil, errors.New("unmarshaling arguments: the arguments are not an object")
	}
	out, err := prepare(args, d)
	if err != nil {
		return nil, fmt.Errorf("unmarshaling arguments: %w", err)
	}
	return out, nil
}

// isNull reports whether args, spaces aside, are null.
func isNull(args []byte) bool { return string(bytes.Trim(args, " \t\n\r")) == "null" }

// prepare rewrites one JSON value as prepareArguments does, d applying when it is an object.
func prepare(data []byte, d *defaults) ([]byte, error) {
	r := rewriter{in: data, limit: growth*len(data) + d.sizeOf()}
	end, err := r.value(0, d, 0)
	if err != nil {
		return nil, err
	}
	if skipSpace(data, end) != len(data) {
		return nil, fmt.Errorf("invalid JSON after offset %d", end)
	}
	if r.out == nil {
		return data, nil
	}
	return append(r.out, data[r.copied:]...), nil
}

// maxDepth bounds the nesting walked: go-sdk refuses messages nested deeper than 1000.
const maxDepth = 10000

// growth bounds the text prepare writes, with the defaults of one object of each kind, at
// this many times its input: whole numbers written out grow 4 times at most ([1e18,…]), and
// only a member written again and again under one name has its defaults written as often.
const growth = 4

// rewriter walks JSON text in one pass, copying it to out only from its first change on.
type rewriter struct {
	in     []byte
	out    []byte // nil until the first change
	copied int    // in[:copied] is in out
	limit  int    // the most out may hold
}

var errGrowth = errors.New("the arguments grow too large as their defaults and whole numbers are written out")

// upTo copies the input up to i, where a change of at most n bytes begins.
func (r *rewriter) upTo(i, n int) {
	need := len(r.out) + i - r.copied + n
	if need > cap(r.out) {
		// Doubling, where append grows a large slice by a quarter: the text written out
		// may reach growth times the input, and a quarter at a time would allocate 4 to 5
		// times that on the way (17 bytes per byte of [1e18,…], measured).
		out := make([]byte, len(r.out), max(2*cap(r.out), need, len(r.in)+len(r.in)/8+64))
		copy(out, r.out)
		r.out = out
	}
	r.out = append(r.out, r.in[r.copied:i]...)
	r.copied = i
}

func (r *rewriter) errAt(i int) error { return fmt.Errorf("invalid JSON at offset %d", i) }

// value walks the value at or after in[i] and returns the offset after it.
func (r *rewriter) value(i int, d *defaults, depth int) (int, error) {
	i = skipSpace(r.in, i)
	if i == len(r.in) || depth > maxDepth {
		return 0, r.errAt(i)
	}
	switch c := r.in[i]; {
	case c == '{':
		return r.object(i, d, depth+1)
	case c == '[':
		return r.array(i, depth+1)
	case c == '"':
		return r.str(i)
	case c == '-' || '0' <= c && c <= '9':
		return r.number(i), nil
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if end := i + len(lit); end <= len(r.in) && string(r.in[i:end]) == lit {
			return end, nil
		}
	}
	return 0, r.errAt(i)
}

// object walks the object at in[i], writing in d's absent members before its end.
func (r *rewriter) object(i int, d *defaults, depth int) (int, error) {
	var seen []bool
	if d != nil {
		seen = make([]bool, len(d.props))
	}
	n := 0
	i = skipSpace(r.in, i+1)
	for more := i == len(r.in) || r.in[i] != '}'; more; n++ {
		end, err := r.str(i)
		if err != nil {
			return 0, err
		}
		var inner *defaults
		if k, ok := d.lookup(r.in[i:end]); ok {
			seen[k], inner = true, d.props[k].inner
		}
		if i = skipSpace(r.in, end); i == len(r.in) || r.in[i] != ':' {
			return 0, r.errAt(i)
		}
		if i, err = r.value(i+1, inner, depth); err != nil {
			return 0, err
		}
		if i, more, err = r.next(i, '}'); err != nil {
			return 0, err
		}
	}
	for k, p := range d.all() {
		if seen[k] {
			continue
		}
		r.upTo(i, 1+len(p.member)+len(p.fill))
		if n > 0 {
			r.out = append(r.out, ',')
		}
		r.out = append(append(r.out, p.member...), p.fill...)
		n++
	}
	if len(r.out) > r.limit {
		return 0, errGrowth
	}
	return i + 1, nil
}

func (r *rewriter) array(i int, depth int) (int, error) {
	i = skipSpace(r.in, i+1)
	for more := i == len(r.in) || r.in[i] != ']'; more; {
		var err error
		if i, err = r.value(i, nil, depth); err != nil {
			return 0, err
		}
		if i, more, err = r.next(i, ']'); err != nil {
			return 0, err
		}
	}
	return i + 1, nil
}

// next reads what follows a member or an element: a comma, after which more follow from
// the offset returned, or the closing bracket, at the offset returned.
func (r *rewriter) next(i int, closing byte) (int, bool, error) {
	switch i = skipSpace(r.in, i); {
	case i == len(r.in):
		return 0, false, r.errAt(i)
	case r.in[i] == ',':
		return skipSpace(r.in, i+1), true, nil
	case r.in[i] == closing:
		return i, false, nil
	}
	return 0, false, r.errAt(i)
}

// str returns the offset after the string at in[i].
func (r *rewriter) str(i int) (int, error) {
	if i == len(r.in) || r.in[i] != '"' {
		return 0, r.errAt(i)
	}
	for j := i + 1; ; {
		q := bytes.IndexByte(r.in[j:], '"')
		if q < 0 {
			return 0, r.errAt(i)
		}
		j += q + 1
		// A quote is escaped when an odd number of backslashes precede it.
		k := j - 2
		for k > i && r.in[k] == '\\' {
			k--
		}
		if (j-2-k)%2 == 0 {
			return j, nil
		}
	}
}

// number walks the number at in[i], rewriting it as an integer when it is one.
func (r *rewriter) number(i int) int {
	end := i + 1
	for end < len(r.in) && numberByte(r.in[end]) {
		end++
	}
	if n, ok := integerOf(r.in[i:end]); ok {
		r.upTo(i, maxIntegerDigits+1)
		r.out = n.append(r.out)
		r.copied = end
	}
	return end
}

func numberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// lookup returns the index of the property whose quoted name is q.
func (d *defaults) lookup(q []byte) (int, bool) {
	if d == nil {
		return 0, false
	}
	name := q[1 : len(q)-1]
	if bytes.IndexByte(name, '\\') >= 0 {
		var s string
		if json.Unmarshal(q, &s) != nil {
			return 0, false
		}
		name = []byte(s)
	}
	k, ok := d.index[string(name)]
	return k, ok
}

func (d *defaults) sizeOf() int {
	if d == nil {
		return 0
	}
	return d.size
}

// all ranges over d's properties; none when d is nil.
func (d *defaults) all() []propDefault {
	if d == nil {
		return nil
	}
	return d.props
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// maxIntegerDigits bounds the integers a number is rewritten as: enough for any int64 or
// uint64, and never more text than a short literal such as 1e400 would blow up into.
const maxIntegerDigits = 20

// integer is a whole number's decimal text: its sign, its digits in two parts, and the
// zeros after them.
type integer struct {
	neg         bool
	whole, frac []byte
	zeros       int
}

func (n integer) append(b []byte) []byte {
	if n.neg {
		b = append(b, '-')
	}
	if len(n.whole)+len(n.frac) == 0 {
		return append(b, '0')
	}
	b = append(append(b, n.whole...), n.frac...)
	for range n.zeros {
		b = append(b, '0')
	}
	return b
}

// integerOf reports whether the number literal lit, written with a fraction or an
// exponent, is a whole number of at most maxIntegerDigits digits, and returns it.
func integerOf(lit []byte) (n integer, ok bool) {
	if n.neg = lit[0] == '-'; n.neg {
		lit = lit[1:]
	}
	n.whole, lit = digits(lit)
	written := false
	if len(lit) > 0 && lit[0] == '.' {
		n.frac, lit = digits(lit[1:])
		written = true
	}
	exp := 0
	if len(lit) > 0 {
		if lit[0] != 'e' && lit[0] != 'E' || len(lit) == 1 {
			return n, false
		}
		written = true
		expNeg := lit[1] == '-'
		if lit[1] == '-' || lit[1] == '+' {
			lit = lit[1:]
		}
		e, rest := digits(lit[1:])
		if e = bytes.TrimLeft(e, "0"); len(e) > 4 || len(rest) > 0 {
			return n, false
		}
		for _, c := range e {
			exp = exp*10 + int(c-'0')
		}
		if expNeg {
			exp = -exp
		}
	}
	if !written {
		return n, false
	}
	// The value is whole‖frac × 10^shift; a negative shift drops digits, which must be zeros.
	shift := exp - len(n.frac)
	if shift < 0 {
		k := min(-shift, len(n.frac))
		if !zeros(n.frac[len(n.frac)-k:]) {
			return n, false
		}
		n.frac = n.frac[:len(n.frac)-k]
		k = min(-shift-k, len(n.whole))
		if !zeros(n.whole[len(n.whole)-k:]) {
			return n, false
		}
		n.whole = n.whole[:len(n.whole)-k]
		shift = 0
	}
	if n.whole = bytes.TrimLeft(n.whole, "0"); len(n.whole) == 0 {
		n.frac = bytes.TrimLeft(n.frac, "0")
	}
	if len(n.whole)+len(n.frac) == 0 {
		shift = 0
	}
	n.zeros = shift
	return n, len(n.whole)+len(n.frac)+n.zeros <= maxIntegerDigits
}

// digits splits b after its leading decimal digits.
func digits(b []byte) (ds, rest []byte) {
	i := 0
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return b[:i], b[i:]
}

func zeros(b []byte) bool {
	for _, c := range b {
		if c != '0' {
			return false
		}
	}
	return true
}
