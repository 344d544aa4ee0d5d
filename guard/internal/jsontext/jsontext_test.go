package jsontext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

var texts = []string{
	`{}`, `[]`, ` {"a" : [1, -2.5e+3, true, false, null, "x\u00e9\n"]} `, `"\ud83d\ude00"`, `0`, `-0.0E-0`,
	`{"a":1,}`, `[1,]`, `{"a" 1}`, `{1:2}`, `[1 2]`, `01`, `1.`, `1e`, `-`, `+1`, `.5`, `"\x"`, "\"\x01\"",
	`"\u12g4"`, `"abc`, `tru`, `nul`, `[`, `{"a":`, `]`, `{"a":1}}`, `[[]]]`, `1 2`, ``, `  `, `{"a":{"b":[{}]}}`,
	"\"\xff\"", `[{"a":[{"b":[]}]}]`, `{"a":[}`, `[{]`,
}

// TestValid: Valid says what encoding/json's json.Valid says, to 10,000 levels of nesting.
func TestValid(t *testing.T) {
	for _, s := range texts {
		if got, want := Valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestValidDeep: nesting deeper than encoding/json reads, of both kinds and across the
// words of the stack, again and again at one depth, costs a bit a level.
func TestValidDeep(t *testing.T) {
	const depth = 200000
	deep := strings.Repeat(`[{"a":`, depth) + "1" + strings.Repeat(`}]`, depth)
	if !Valid([]byte(deep)) {
		t.Error("deep nesting refused")
	}
	if Valid([]byte(deep[:len(deep)-1])) {
		t.Error("deep nesting left open accepted")
	}
	if Valid([]byte(strings.Replace(deep, `}]}]`, `]}]}`, 1))) {
		t.Error("mismatched brackets accepted")
	}
	// 64 levels open, then many arrays opened and closed at the 65th.
	churn := []byte(strings.Repeat("[", 64) + strings.Repeat("[0],", 100000) + "0" + strings.Repeat("]", 64))
	if !Valid(churn) {
		t.Error("churn refused")
	}
	if n := testing.AllocsPerRun(10, func() { Valid(churn) }); n != 0 {
		t.Errorf("%v allocations over one boundary of the stack, want none", n)
	}
	churn = []byte(strings.Repeat("[", 256) + strings.Repeat("[0],", 100000) + "0" + strings.Repeat("]", 256))
	if n := testing.AllocsPerRun(10, func() { Valid(churn) }); n > 2 {
		t.Errorf("%v allocations over the boundary of the first 256 levels, want at most 2", n)
	}
}

// TestSkipValue: the end of each value of a well-formed text.
func TestSkipValue(t *testing.T) {
	doc := []byte(`{"a":[1,{"b":"]}\""}],"c":-1.5e3,"d":true,"e":false,"f":null,"g":"x"}`)
	var ends []string
	i := 1
	for doc[i] != '}' {
		_, end, _ := ScanString(doc, i)
		i = SkipSpace(doc, end+1)
		e := SkipValue(doc, i)
		ends = append(ends, string(doc[i:e]))
		i = e
		if doc[i] == ',' {
			i++
		}
	}
	want := []string{`[1,{"b":"]}\""}]`, `-1.5e3`, `true`, `false`, `null`, `"x"`}
	if strings.Join(ends, " ") != strings.Join(want, " ") {
		t.Errorf("got %q, want %q", ends, want)
	}
	if SkipValue(doc, len(doc)) != len(doc) {
		t.Error("past the end")
	}
}

// FuzzValid holds Valid to json.Valid on any input.
func FuzzValid(f *testing.F) {
	for _, s := range texts {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if bytes.Count(b, []byte("["))+bytes.Count(b, []byte("{")) > 9000 {
			return // encoding/json stops at 10,000 levels
		}
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Errorf("Valid(%q) = %v, json.Valid %v", b, got, want)
		}
	})
}

// ScanString agrees with encoding/json on which string literals are well formed.
func TestScanStringAgreesWithEncodingJSON(t *testing.T) {
	alphabet := []byte("ab\"\\/ubfnrt0123456789ABCDEFxyz \x00\x1f\x7f\x80\xc3\xa9\xff")
	seed := uint64(1)
	next := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % n
	}
	for range 200000 {
		lit := []byte{'"'}
		for range next(24) {
			lit = append(lit, alphabet[next(len(alphabet))])
		}
		if next(2) == 0 {
			lit = append(lit, '"')
		}
		want := -1 // where the first well-formed string ends; encoding/json allows invalid UTF-8
		for k := 2; k <= len(lit); k++ {
			if json.Valid(lit[:k]) {
				want = k
				break
			}
		}
		got, end, problem := -1, 0, ""
		if _, end, problem = ScanString(lit, 0); problem == "" {
			got = end
		}
		if got != want {
			t.Fatalf("%q: ScanString ends at %d (%q), encoding/json at %d", lit, end, problem, want)
		}
	}
}
