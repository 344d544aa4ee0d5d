package guard

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"testing"
)

// rat is the exact value of a JSON number literal, by math/big.
func rat(t *testing.T, lit string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(lit)
	if !ok {
		t.Fatalf("big.Rat cannot read %q", lit)
	}
	return r
}

var numberLiterals = []string{
	"0", "-0", "0.0", "0e10", "1", "-1", "10", "1e1", "100e-1", "0.1", "1.0", "1.5", "-1.5", "2.50",
	"123456789012345678", "1234567890123456789", "12345678901234567890123", "-9223372036854775808",
	"1e-400", "1E400", "0.000001", "1e-6", "9.99", "10.0e-1", "3", "0.3", "3e-1", "7", "0.01", "1.1e2",
}

// TestNumberCompare: cmp agrees with big.Rat on every pair, equal numbers share one
// canonical text and unequal ones never do, and isInt says what big.Rat says.
func TestNumberCompare(t *testing.T) {
	for _, a := range numberLiterals {
		x, _ := parseNumber([]byte(a), nil)
		if got, want := x.isInt(), rat(t, a).IsInt(); got != want {
			t.Errorf("isInt(%s) = %v, want %v", a, got, want)
		}
		for _, b := range numberLiterals {
			y, _ := parseNumber([]byte(b), nil)
			want := rat(t, a).Cmp(rat(t, b))
			if got := x.cmp(y); got != want {
				t.Errorf("cmp(%s, %s) = %d, want %d", a, b, got, want)
			}
			same := string(x.appendCanonical(nil)) == string(y.appendCanonical(nil))
			if same != (want == 0) {
				t.Errorf("canonical %s and %s: equal texts %v, equal numbers %v", a, b, same, want == 0)
			}
		}
	}
}

// TestNumberMultipleOf: multipleOf agrees with big.Rat, for divisors that fit a word and
// for those that do not.
func TestNumberMultipleOf(t *testing.T) {
	divisors := []string{"1", "2", "0.5", "0.01", "3", "0.3", "7", "1e-6", "1e3", "12345678901234567890123", "0.0001234567890123456789"}
	var work divisorWork // shared by all, as by the numbers of one call
	for _, a := range numberLiterals {
		for _, m := range divisors {
			x, _ := parseNumber([]byte(a), nil)
			d := newBound(m)
			d.asDivisor()
			q := new(big.Rat).Quo(rat(t, a), rat(t, m))
			if got, want := x.multipleOf(d, &work), q.IsInt(); got != want {
				t.Errorf("multipleOf(%s, %s) = %v, want %v", a, m, got, want)
			}
		}
	}
}

// TestSmallForms: the short paths read what parseNumber reads, and give up where they must.
func TestSmallForms(t *testing.T) {
	for _, lit := range numberLiterals {
		r := rat(t, lit)
		if v, ok := smallInt([]byte(lit)); ok {
			if new(big.Rat).SetInt64(v).Cmp(r) != 0 {
				t.Errorf("smallInt(%s) = %d", lit, v)
			}
		} else if _, err := strconv.ParseInt(lit, 10, 64); err == nil && len(lit) <= 18 {
			t.Errorf("smallInt(%s) gave up on a short integer", lit)
		}
		if m, frac, ok := smallDecimal([]byte(lit)); ok {
			got := new(big.Rat).SetFrac(big.NewInt(m), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(frac)), nil))
			if got.Cmp(r) != 0 {
				t.Errorf("smallDecimal(%s) = %d × 10^-%d", lit, m, frac)
			}
		}
	}
	for _, c := range []struct {
		a, b int64
		want int
	}{{1, 2, -1}, {2, 1, 1}, {-3, -3, 0}} {
		if got := cmpInt(c.a, c.b); got != c.want {
			t.Errorf("cmpInt(%d, %d) = %d", c.a, c.b, got)
		}
	}
}

// longDivisors are divisors of more than 19 significant digits: 2^-70 written exactly,
// of which 1 is a multiple, and one of which it is not.
var longDivisors = []struct {
	text  string
	valid bool
}{
	{new(big.Int).Exp(big.NewInt(5), big.NewInt(70), nil).String() + "e-70", true},
	{"1.0000000000000000000001", false},
}

// validatedPerByte is what one validation of args allocates, per byte of args, and the
// violations it finds.
func validatedPerByte(v *Validator, args []byte) (float64, []Violation) {
	var vs []Violation
	return float64(allocated(func() { vs = v.Validate(args) })) / float64(len(args)), vs
}

// onesArgs builds {"a":[1,1,…]} of about size bytes.
func onesArgs(size int) []byte {
	return []byte(`{"a":[1` + strings.Repeat(",1", (size-8)/2) + `]}`)
}

func multipleOfValidator(t testing.TB, divisor string) *Validator {
	t.Helper()
	v, err := Compile([]byte(`{"type":"object","properties":{"a":{"type":"array","items":{"multipleOf":` + divisor + `}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestMultipleOfLongDivisorAllocs: a divisor beyond a word is read once, not once a
// number: 32,768 numbers checked against it cost a few allocations, for the violations.
func TestMultipleOfLongDivisorAllocs(t *testing.T) {
	args := onesArgs(64 << 10)
	for _, d := range longDivisors {
		v := multipleOfValidator(t, d.text)
		if allocs := testing.AllocsPerRun(3, func() { v.Validate(args) }); allocs > 10 {
			t.Errorf("multipleOf %s: %.0f allocations", d.text, allocs)
		}
	}
}

// TestMultipleOfLongDivisorAtScale: a megabyte of numbers against a divisor beyond a word
// allocates no more than a few bytes per byte.
func TestMultipleOfLongDivisorAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	for _, d := range longDivisors {
		v := multipleOfValidator(t, d.text)
		perByte, vs := validatedPerByte(v, onesArgs(1<<20))
		if (vs == nil) != d.valid {
			t.Errorf("multipleOf %s: %d violations", d.text, len(vs))
		}
		if perByte > 2 {
			t.Errorf("multipleOf %s: %.1f B/B", d.text, perByte)
		}
	}
}

// BenchmarkMultipleOfSlope: numbers against a divisor of more than 19 digits, valid and
// refused, by the size of the arguments.
func BenchmarkMultipleOfSlope(b *testing.B) {
	for _, d := range longDivisors {
		v := multipleOfValidator(b, d.text)
		for _, size := range []int{1 << 10, 64 << 10, 1 << 20} {
			args := onesArgs(size)
			b.Run(fmt.Sprintf("refused=%v/%dKB", !d.valid, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(args)))
				b.ReportAllocs()
				for b.Loop() {
					v.Validate(args)
				}
			})
		}
	}
}
