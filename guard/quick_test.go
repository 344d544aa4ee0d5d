package guard

import (
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard/testsuite"
)

const quickClosed = `{"type":"object","properties":{"a":{"type":"string"},"n":{"type":"integer","minimum":0,"maximum":9}},"required":["a"],"additionalProperties":false}`

// quickTyped holds a oneOf told apart by type, and quickFilter the recursive filter
// tree, a oneOf told apart by the first letter of the object's first member.
const (
	quickShapes = `{"properties":{"s":{"type":"object","oneOf":[
{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number"}},"required":["kind","r"],"additionalProperties":false},
{"type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number"}},"required":["kind","side"],"additionalProperties":false}]}}}`
	quickSameLetter = `{"oneOf":[{"type":"object","properties":{"field":{}},"required":["field"],"additionalProperties":false},
{"type":"object","properties":{"filter":{}},"additionalProperties":false}]}`
	quickOpenShapes = `{"properties":{"s":{"anyOf":[{"type":"object","properties":{"kind":{"enum":["a","b"]}}},{"type":"object","properties":{"kind":{"enum":["c"]}}}]}}}`
	quickOpenEnded  = `{"oneOf":[{"type":"object","properties":{"a":{}},"additionalProperties":false},
{"type":"object","properties":{"b":{}},"additionalProperties":false}]}`
	quickTyped  = `{"properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer","maximum":9}]}}}`
	quickFilter = `{"type":"object","properties":{"filter":{"$ref":"#/$defs/condition"}},"required":["filter"],
"$defs":{"condition":{"oneOf":[
{"type":"object","properties":{"field":{"type":"string","pattern":"^[a-z_]{1,32}$"},"op":{"enum":["eq","ne","lt","gt","contains"]},
"value":{"type":["string","number","boolean"]}},"required":["field","op","value"],"additionalProperties":false},
{"type":"object","properties":{"logic":{"enum":["and","or","not"]},"children":{"type":"array","minItems":1,"items":{"$ref":"#/$defs/condition"}}},
"additionalProperties":false}]}}}`
)

var quickCases = []struct {
	name, schema, args string
	want               bool // the quick pass accepts; false leaves it to the explaining pass
}{
	{"declared members in order", quickClosed, `{"a":"x","n":3}`, true},
	{"declared members out of order, with space", quickClosed, " {\n\t\"n\" : 3 , \"a\" : \"x\" } ", true},
	{"a missing required member", quickClosed, `{"n":3}`, false},
	{"a duplicate member", quickClosed, `{"a":"x","a":"y"}`, false},
	{"an escaped name", quickClosed, `{"\u0061":"x"}`, false},
	{"an escaped string", quickClosed, `{"a":"\n"}`, false},
	{"an undeclared member", quickClosed, `{"a":"x","z":1}`, false},
	{"an undeclared member of an open object", `{"properties":{"a":{}}}`, `{"z":1,"a":2}`, true},
	{"two undeclared members", `{"properties":{"a":{}}}`, `{"z":1,"y":2}`, false},
	{"an undeclared member holding an object", `{"properties":{"a":{}}}`, `{"z":{}}`, false},
	{"an undeclared name in invalid UTF-8", `{"properties":{"�":{"type":"string"}}}`, "{\"\xff\":1}", false},
	{"a required name that is not a property", `{"required":["q"],"properties":{"a":{}}}`, `{"q":1}`, true},
	{"a required name that is not a property, twice", `{"required":["q"],"properties":{"a":{}}}`, `{"q":1,"q":1}`, false},
	{"a bound broken", quickClosed, `{"a":"x","n":10}`, false},
	{"2.0 as an integer", quickClosed, `{"a":"x","n":2.0}`, false},
	{"a boolean as an integer", quickClosed, `{"a":"x","n":true}`, false},
	{"an integer beyond int64", `{"properties":{"n":{"maximum":10}}}`, `{"n":99999999999999999999}`, false},
	{"a decimal bound", `{"properties":{"n":{"minimum":0.5}}}`, `{"n":1}`, false},
	{"an integer without bounds", `{"properties":{"n":{"type":"number"}}}`, `{"n":-12.5e3}`, true},
	{"a trailing value", quickClosed, `{"a":"x"} {}`, false},
	{"a truncated object", quickClosed, `{"a":"x"`, false},
	{"not an object", quickClosed, `[]`, false},
	{"nothing", quickClosed, ``, false},
	{"enum on a string", `{"properties":{"u":{"enum":["c","f"]}}}`, `{"u":"c"}`, true},
	{"enum refused", `{"properties":{"u":{"enum":["c","f"]}}}`, `{"u":"k"}`, false},
	{"enum on a number", `{"properties":{"u":{"enum":[1,2]}}}`, `{"u":1}`, false},
	{"const on a boolean", `{"properties":{"b":{"const":true}}}`, `{"b":true}`, true},
	{"const refused on a boolean", `{"properties":{"b":{"const":true}}}`, `{"b":false}`, false},
	{"null is not a string", quickClosed, `{"a":null}`, false},
	{"a pattern on text outside ASCII", `{"properties":{"s":{"pattern":"^é+$","maxLength":2}}}`, `{"s":"éé"}`, true},
	{"invalid UTF-8 under a pattern", `{"properties":{"s":{"pattern":"^.*$"}}}`, "{\"s\":\"\xff\"}", false},
	{"invalid UTF-8 in a free string", `{"properties":{"s":{"type":"string"}}}`, "{\"s\":\"\xff\"}", true},
	{"a control character", quickClosed, "{\"a\":\"\x01\"}", false},
	{"nested objects and arrays", `{"properties":{"o":{"properties":{"l":{"type":"array","items":{"type":"integer"},"maxItems":3}}}}}`,
		`{"o":{"l":[1,2,3]}}`, true},
	{"too many items", `{"properties":{"l":{"items":{"type":"integer"},"maxItems":1}}}`, `{"l":[1,2]}`, false},
	{"an item past prefixItems refused", `{"properties":{"l":{"prefixItems":[{}],"items":false}}}`, `{"l":[1,2]}`, false},
	{"an object inside an unconstrained value", `{"properties":{"m":{}}}`, `{"m":{"k":1}}`, true},
	{"a duplicate inside an unconstrained value", `{"properties":{"m":{}}}`, `{"m":{"k":1,"k":2}}`, false},
	{"scalars inside an unconstrained array", `{"properties":{"m":{}}}`, `{"m":[1,"x",null,true]}`, true},
	{"a false schema", `{"properties":{"x":false}}`, `{"x":1}`, false},
	{"a recursive $ref", `{"$ref":"#/$defs/t","$defs":{"t":{"properties":{"c":{"items":{"$ref":"#/$defs/t"}}}}}}`,
		`{"c":[{"c":[]},{}]}`, true},
	{"a union told apart by type: the string", quickTyped, `{"a":"x"}`, true},
	{"a union told apart by type: the integer", quickTyped, `{"a":3}`, true},
	{"a union told apart by type: a number that is not whole", quickTyped, `{"a":2.5}`, false},
	{"a union told apart by type: neither", quickTyped, `{"a":true}`, false},
	{"anyOf told apart by type", `{"properties":{"a":{"anyOf":[{"type":"string","minLength":2},{"type":"null"}]}}}`, `{"a":null}`, true},
	{"anyOf told apart by type, the alternative refusing", `{"properties":{"a":{"anyOf":[{"type":"string","minLength":2},{"type":"null"}]}}}`, `{"a":"x"}`, false},
	{"a filter tree", quickFilter, `{"filter":{"logic":"and","children":[{"field":"a","op":"eq","value":1},{"logic":"or","children":[{"field":"b","op":"ne","value":"x"}]}]}}`, true},
	{"a filter leaf without its op", quickFilter, `{"filter":{"logic":"and","children":[{"field":"a","value":1}]}}`, false},
	{"a filter leaf with a group's member", quickFilter, `{"filter":{"field":"a","op":"eq","value":1,"logic":"and"}}`, false},
	{"a filter of neither kind", quickFilter, `{"filter":{"name":"a"}}`, false},
	{"an empty filter, which only a group takes", quickFilter, `{"filter":{}}`, false},
	{"a filter whose first name is escaped", quickFilter, `{"filter":{"\u0066ield":"a","op":"eq","value":1}}`, false},
	{"a filter that is not an object", quickFilter, `{"filter":[]}`, false},
	{"a union told apart by a whole first name", quickSameLetter, `{"filter":1}`, true},
	{"a union told apart by a whole first name, the other", quickSameLetter, `{"field":1}`, true},
	{"a first name neither declares", quickSameLetter, `{"fx":1}`, false},
	{"an empty object that two closed alternatives take", quickOpenEnded, `{}`, false},
	{"an empty object with space that two closed alternatives take", quickOpenEnded, " { \n } ", false},
	{"an escaped first name that two closed alternatives tell apart", quickOpenEnded, `{"\u0061":1}`, false},
	{"an empty object as an item", `{"items":` + quickOpenEnded + `}`, `[{"a":1},{}]`, false},
	{"an empty object through $ref", `{"properties":{"f":{"$ref":"#/$defs/u"}},"$defs":{"u":` + quickOpenEnded + `}}`, `{"f":{}}`, false},
	{"an empty object as a member", `{"properties":{"filter":` + quickOpenEnded + `}}`, `{"filter":{}}`, false},
	{"a first name one closed alternative declares", quickOpenEnded, `{"a":1}`, true},
	{"a union told apart by its tag", quickShapes, `{"s":{"kind":"circle","r":2}}`, true},
	{"a union's tag after a scalar member", quickShapes, `{"s":{"r":2,"kind":"circle"}}`, true},
	{"a union's tag of another alternative", quickShapes, `{"s":{"kind":"square","r":2}}`, false},
	{"a union's tag of none", quickShapes, `{"s":{"kind":"triangle"}}`, false},
	{"a union's tag escaped", quickShapes, `{"s":{"kind":"\u0063ircle","r":2}}`, false},
	{"a union's tag missing", quickShapes, `{"s":{"r":2}}`, false},
	{"arguments that end after a member's colon", quickShapes, `{"s":{"":`, false},
	{"a union's tag after a container", quickOpenShapes, `{"s":{"meta":{},"kind":"c"}}`, false},
	{"a union's tag from an enum, open objects", quickOpenShapes, `{"s":{"kind":"c","x":[1]}}`, true},
	{"a union's own type refused", quickShapes, `{"s":[]}`, false},
	{"a name too long to be read in two words", `{"properties":{"includeArchivedItems":{"type":"boolean"}},"additionalProperties":false}`,
		`{"includeArchivedItems":true}`, true},
	{"a short name in the last bytes", `{"properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false}`, `{"a":1}`, true},
	{"a name that begins a declared one", `{"properties":{"ab":{}},"additionalProperties":false}`, `{"a":1}`, false},
	{"a declared name with more after it", `{"properties":{"a":{}},"additionalProperties":false}`, `{"ab":1,"cdefghijklmn":2}`, false},
	{"a name before a space and its colon", `{"properties":{"units":{"enum":["c"]}},"required":["units"]}`, `{"units"  :   "c"   }`, true},
	{"lengths on a plain string", `{"properties":{"s":{"minLength":2,"maxLength":3}}}`, `{"s":"abc"}`, true},
	{"a plain string too long", `{"properties":{"s":{"maxLength":3}}}`, `{"s":"abcd"}`, false},
	{"a plain string too short", `{"properties":{"s":{"minLength":2}}}`, `{"s":"a"}`, false},
	{"a leading zero", `{"properties":{"n":{"type":"integer"}}}`, `{"n":01}`, false},
	{"a 19-digit integer without bounds", `{"properties":{"n":{"type":"integer"}}}`, `{"n":1234567890123456789}`, true},
	{"a negative integer at its bound", `{"properties":{"n":{"minimum":-5}}}`, `{"n":-5}`, true},
	{"a negative integer past its bound", `{"properties":{"n":{"minimum":-5}}}`, `{"n":-6}`, false},
	{"an exponent under an integer", `{"properties":{"n":{"type":"integer"}}}`, `{"n":1e2}`, false},
	{"a lone minus", `{"properties":{"n":{"type":"number"}}}`, `{"n":-}`, false},
	{"a boolean cut short", `{"properties":{"b":{"type":"boolean"}}}`, `{"b":tru}`, false},
	{"false under a boolean", `{"properties":{"b":{"type":"boolean"}}}`, `{"b":false}`, true},
	{"a string where a boolean belongs", `{"properties":{"b":{"type":"boolean"}}}`, `{"b":"true"}`, false},
	{"unique plain items", quickUnique, `{"tags":["a","b",1,-2,true,null]}`, true},
	{"no items, unique", quickUnique, `{"tags":[]}`, true},
	{"two equal strings", quickUnique, `{"tags":["a","b","a"]}`, false},
	{"two equal integers", quickUnique, `{"tags":[10,2,10]}`, false},
	{"an escaped string, maybe equal", quickUnique, `{"tags":["a","\u0061"]}`, false},
	{"an integer spelled otherwise", quickUnique, `{"tags":[1,1.0]}`, false},
	{"0 and -0", quickUnique, `{"tags":[0,-0]}`, false},
	{"an object among the items", quickUnique, `{"tags":[{"a":1},{"a":1}]}`, false},
	{"more items than the quick pass compares", quickUnique, `{"tags":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}`, false},
	{"as many items as the quick pass compares", quickUnique, `{"tags":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]}`, true},
	{"deeper than the limit", `{"$ref":"#/$defs/t","$defs":{"t":{"properties":{"c":{"$ref":"#/$defs/t"}}}}}`,
		strings.Repeat(`{"c":`, 64) + `{}` + strings.Repeat(`}`, 64), false},
}

// quickUnique declares an array of unique scalars.
const quickUnique = `{"properties":{"tags":{"type":"array","uniqueItems":true,"items":{"type":["string","integer","boolean","null"]}}}}`

func TestQuickPass(t *testing.T) {
	for _, c := range quickCases {
		t.Run(c.name, func(t *testing.T) {
			v, err := Compile([]byte(c.schema))
			if err != nil {
				t.Fatal(err)
			}
			got := v.quickValid([]byte(c.args))
			if got != c.want {
				t.Errorf("quick pass accepts %q: %v, want %v", c.args, got, c.want)
			}
			if vs := v.violations([]byte(c.args)); got && vs != nil {
				t.Errorf("the quick pass accepts %q, which the explaining pass refuses: %v", c.args, Messages(vs, nil))
			}
		})
	}
}

func TestQuickPassSteersClear(t *testing.T) {
	for _, schema := range []string{
		`{"properties":{"a":{"anyOf":[{"type":"string"},{"type":"string","minLength":3}]}}}`,
		`{"properties":{"a":{"oneOf":[{"type":"integer"},{"type":"number"}]}}}`,
		`{"properties":{"a":{"oneOf":[{"properties":{"x":{}},"additionalProperties":false},{"properties":{"xy":{}},"additionalProperties":false}]}}}`,
		`{"properties":{"a":{"type":"object","oneOf":[{"type":"string"},{"type":"integer"}]}}}`,
		`{"properties":{"a":{"oneOf":[{"type":"object","properties":{"k":{"enum":["a","b"]}}},{"type":"object","properties":{"k":{"enum":["b"]}}}]}}}`,
		`{"properties":{"a":{"type":"integer","oneOf":[{"type":"string"},{"type":"integer"}]}}}`,
		`{"properties":{"a":{}},"additionalProperties":{"type":"string"}}`,
		`{"properties":{"a":{}},"minProperties":1}`,
		`{"properties":{"a":{}},"dependentRequired":{"a":["b"]}}`,
	} {
		v, err := Compile([]byte(schema))
		if err != nil {
			t.Fatal(err)
		}
		if v.root.quick {
			t.Errorf("%s: marked for the quick pass, which would give up on every call", schema)
		}
	}
}

// quickGroup is a group of the conformance corpora whose schema the quick pass takes.
type quickGroup struct {
	name  string
	v     *Validator
	tests []testsuite.Test
}

func quickGroups(tb testing.TB) []quickGroup {
	return corpusGroups(tb, func(v *Validator) bool { return v.root.quick })
}

// corpusGroups returns the groups of the conformance corpora whose schema the subset
// compiles and keep takes.
func corpusGroups(tb testing.TB, keep func(*Validator) bool) []quickGroup {
	files, err := testsuite.LoadCorpus()
	if err != nil {
		tb.Fatal(err)
	}
	var out []quickGroup
	for _, f := range files {
		for _, g := range f.Groups {
			v, err := Compile(g.Schema)
			if err != nil || v.full != nil || !keep(v) {
				continue
			}
			out = append(out, quickGroup{name: f.Name + " / " + g.Description, v: v, tests: g.Tests})
		}
	}
	return out
}

// TestQuickPassNeverAcceptsWhatCheckRefuses runs both passes on every case of the
// conformance corpora: whatever the quick pass accepts, the explaining pass must find valid.
func TestQuickPassNeverAcceptsWhatCheckRefuses(t *testing.T) {
	decided := 0
	for _, g := range quickGroups(t) {
		for _, tc := range g.tests {
			if !g.v.quickValid(tc.Data) {
				continue
			}
			decided++
			if vs := g.v.violations(tc.Data); vs != nil {
				t.Errorf("%s / %s: the quick pass accepts what the explaining pass refuses: %v",
					g.name, tc.Description, Messages(vs, nil))
			}
		}
	}
	if decided < 100 {
		t.Errorf("the quick pass decided only %d cases of the corpora", decided)
	}
	t.Logf("the quick pass decided %d cases", decided)
}

// FuzzQuickPass feeds arbitrary arguments, duplicates, bad syntax and bad UTF-8 included,
// to both passes: whatever the quick pass accepts, the explaining pass must find valid.
// The first input picks the schema.
func FuzzQuickPass(f *testing.F) {
	var validators []*Validator
	for _, c := range quickCases {
		v, err := Compile([]byte(c.schema))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint(len(validators)), []byte(c.args))
		validators = append(validators, v)
	}
	for _, g := range quickGroups(f) {
		for _, tc := range g.tests {
			f.Add(uint(len(validators)), []byte(tc.Data))
		}
		validators = append(validators, g.v)
	}
	f.Fuzz(func(t *testing.T, i uint, args []byte) {
		v := validators[i%uint(len(validators))]
		if v.quickValid(args) {
			if vs := v.violations(args); vs != nil {
				t.Fatalf("the quick pass accepts %q, which the explaining pass refuses: %v", args, Messages(vs, nil))
			}
		}
	})
}
