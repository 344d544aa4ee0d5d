package gosdk

import (
	"bytes"
	"reflect"
	"strconv"
	"strings"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// A typed tool's handler gets its arguments decoded into In: the guard judges the numbers
// sent exactly, but 1e-400 is 0 to a float64, 0.99999999999999999999 is 1, and
// 9007199254740993 is 9007199254740992; checked as above an exclusiveMinimum of 0, below
// an exclusiveMaximum of 1 or above one of 9007199254740992, they would reach the handler
// as the bound (go-sdk alone, which validates every number as a float64, refuses them).
// So the arguments must meet the schema as In reads them too: each number that lands in a
// float64 (or an any) as the float64 it rounds to, in a float32 as the float32, in an
// integer exactly, as it is decoded; a number whose place cannot be told, as go-sdk reads
// it, a float64.

// A decoding is the type a typed tool's handler decodes its arguments into.
type decoding struct {
	t        reflect.Type
	float32s bool // a float32 is found somewhere in t
}

// decodingOf returns the decoding into t.
func decodingOf(t reflect.Type) *decoding {
	return &decoding{t: t, float32s: holdsFloat32(t, map[reflect.Type]bool{})}
}

// holdsFloat32 reports whether a value of t may hold a float32.
func holdsFloat32(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Float32:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsFloat32(t.Elem(), seen)
	case reflect.Map:
		return holdsFloat32(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsFloat32(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// asFloats returns args as d reads them when they then break schema; else args, which
// the guard checks as they are. d is nil for a raw tool, whose handler reads the bytes.
func asFloats(g *guard.Guard, schema *guard.Schema, args []byte, d *decoding) (read []byte) {
	if d == nil {
		return args
	}
	rounds := false
	eachNumber(args, func(n number) bool {
		rounds = n.rounds(args, d.float32s)
		return !rounds
	})
	if !rounds {
		return args
	}
	nums := numbersIn(args)
	v, err := g.Compiled(schema)
	if err != nil {
		return args // refused as a schema that does not compile
	}
	defer func() {
		if recover() != nil { // judged as go-sdk reads them; a panic again is the guard's to answer
			read = rewritten(args, nums, nil)
		}
	}()
	if v.Validate(args) != nil {
		return args // refused as sent
	}
	if read = rewritten(args, nums, readsOf(args, nums, d.t)); v.Validate(read) != nil {
		return read
	}
	return args
}

// A number is the span of a JSON number in a text.
type number struct{ start, end int }

// rounds reports whether n, in b, reads otherwise as a float64, or as a float32 when
// float32s, than as written: in value, or, for a fraction or an exponent, only in form
// (2.50, 1E0), which costs a check and changes nothing.
func (n number) rounds(b []byte, float32s bool) bool {
	num := b[n.start:n.end]
	exact := 15 // digits of an integer that a float64 holds exactly
	if float32s {
		exact = 7
	}
	if !bytes.ContainsAny(num, ".eE") && len(bytes.TrimPrefix(num, []byte("-"))) <= exact {
		return false
	}
	var room [32]byte
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil {
		return false // beyond float64's range: decoding it into a float fails
	}
	form := byte('g')
	if !bytes.ContainsAny(num, ".eE") {
		form = 'f' // an integer: its digits, whatever their number
	}
	if !bytes.Equal(strconv.AppendFloat(room[:0], f, form, -1, 64), num) {
		return true
	}
	if f, err := strconv.ParseFloat(string(num), 32); float32s && err == nil {
		return !bytes.Equal(strconv.AppendFloat(room[:0], f, form, -1, 32), num)
	}
	return false
}

// float32Form appends num as the float32 it rounds to, or num when it has none.
func float32Form(dst, num []byte) []byte {
	f, err := strconv.ParseFloat(string(num), 32)
	if err != nil {
		return append(dst, num...)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, 32)
}

// numbersIn returns the numbers of the JSON text b, outside its strings, in order.
func numbersIn(b []byte) []number {
	var nums []number
	eachNumber(b, func(n number) bool {
		nums = append(nums, n)
		return true
	})
	return nums
}

// eachNumber calls yield with each number of the JSON text b, outside its strings, in
// order, while it returns true.
func eachNumber(b []byte, yield func(number) bool) {
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case c == '-' || '0' <= c && c <= '9':
			j := i
			for j < len(b) && strings.IndexByte("0123456789+-.eE", b[j]) >= 0 {
				j++
			}
			if !yield(number{i, j}) {
				return
			}
			i = j - 1
		}
	}
}

// A reading is how a handler reads a number of its arguments.
type reading uint8

const (
	asFloat64 reading = iota // as go-sdk does, and a float64 or an any
	asFloat32
	exactly // an integer field
)

// maxMarked bounds the numbers readsOf tells apart: each is marked by its place in
// order, and a float32 holds integers exactly up to 2^24.
const maxMarked = 1 << 24

// readsOf returns how In reads each of the numbers nums of args: it decodes args into In
// with every number replaced by its place in order, from 1, and finds where each place
// landed. A number it cannot place (dropped, read by a type's own UnmarshalJSON or kept
// as raw bytes), or every number when args do not decode so, reads as go-sdk reads it.
func readsOf(args []byte, nums []number, in reflect.Type) []reading {
	reads := make([]reading, len(nums))
	if len(nums) >= maxMarked {
		return reads
	}
	marked := make([]byte, 0, len(args))
	last := 0
	for i, n := range nums {
		marked = strconv.AppendInt(append(marked, args[last:n.start]...), int64(i+1), 10)
		last = n.end
	}
	marked = append(marked, args[last:]...)
	v := reflect.New(in)
	if unmarshal(marked, v.Interface()) != nil {
		return reads
	}
	place := func(mark float64, r reading) {
		if i := int(mark) - 1; float64(i+1) == mark && 0 <= i && i < len(reads) {
			reads[i] = r
		}
	}
	var walk func(reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Float64:
			place(v.Float(), asFloat64)
		case reflect.Float32:
			place(v.Float(), asFloat32)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			place(float64(v.Int()), exactly)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			place(float64(v.Uint()), exactly)
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		case reflect.Slice, reflect.Array:
			if v.Type().Elem().Kind() == reflect.Uint8 {
				return // bytes: a JSON string, or raw bytes
			}
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Map:
			for it := v.MapRange(); it.Next(); {
				walk(it.Value())
			}
		}
	}
	walk(v.Elem())
	return reads
}

// rewritten returns args with each of its numbers nums written as reads says it is read
// (nil: every one as a float64); args itself when none changes.
func rewritten(args []byte, nums []number, reads []reading) []byte {
	var out []byte
	var room [32]byte
	last := 0
	for i, n := range nums {
		r := asFloat64
		if reads != nil {
			r = reads[i]
		}
		num := args[n.start:n.end]
		read := num
		switch f, err := strconv.ParseFloat(string(num), 64); {
		case r == exactly || err != nil:
		case r == asFloat32:
			read = float32Form(room[:0], num)
		default:
			read = strconv.AppendFloat(room[:0], f, 'g', -1, 64)
		}
		if !bytes.Equal(read, num) {
			out = append(append(out, args[last:n.start]...), read...)
			last = n.end
		}
	}
	if out == nil {
		return args
	}
	return append(out, args[last:]...)
}
