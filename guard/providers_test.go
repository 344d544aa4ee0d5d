package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// providerCases are schemas from the providers' documentation and from the errors their
// APIs returned in public reports (the source of each rule in providerrules.go), with the
// rules LintFor must find in each: none for a schema the provider takes.
var providerCases = []struct {
	name   string
	target Target
	schema string
	want   []string // "location rule", in LintFor's order
}{
	// OpenAI, strict: the guide's examples.
	{"weather, all required", OpenAIStrict, `{"type":"object","properties":{"location":{"type":"string","description":"The location"},"unit":{"type":"string","enum":["F","C"]}},"additionalProperties":false,"required":["location","unit"]}`, nil},
	{"optional as null", OpenAIStrict, `{"type":"object","properties":{"location":{"type":"string"},"unit":{"type":["string","null"],"enum":["F","C"]}},"additionalProperties":false,"required":["location","unit"]}`, nil},
	{"string restrictions", OpenAIStrict, `{"type":"object","properties":{"name":{"type":"string"},"username":{"type":"string","pattern":"^@[a-zA-Z0-9_]+$"},"email":{"type":"string","format":"email"}},"additionalProperties":false,"required":["name","username","email"]}`, nil},
	{"number restrictions", OpenAIStrict, `{"type":"object","properties":{"value":{"type":"number","minimum":-130,"maximum":130}},"additionalProperties":false,"required":["value"]}`, nil},
	{"nested anyOf", OpenAIStrict, `{"type":"object","properties":{"item":{"anyOf":[{"type":"object","properties":{"name":{"type":"string"}},"additionalProperties":false,"required":["name"]},{"type":"object","properties":{"city":{"type":"string"}},"additionalProperties":false,"required":["city"]}]}},"additionalProperties":false,"required":["item"]}`, nil},
	{"definitions", OpenAIStrict, `{"type":"object","properties":{"steps":{"type":"array","items":{"$ref":"#/$defs/step"}}},"$defs":{"step":{"type":"object","properties":{"output":{"type":"string"}},"required":["output"],"additionalProperties":false}},"required":["steps"],"additionalProperties":false}`, nil},
	{"recursion", OpenAIStrict, `{"type":"object","properties":{"list":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"value":{"type":"number"},"next":{"anyOf":[{"$ref":"#/$defs/node"},{"type":"null"}]}},"additionalProperties":false,"required":["next","value"]}},"additionalProperties":false,"required":["list"]}`, nil},
	{"no parameters", OpenAIStrict, `{"additionalProperties":false,"type":"object","properties":{},"required":[]}`, nil},
	{"object left open", OpenAIStrict, `{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`,
		[]string{"# openai-strict/additional-properties"}},
	{"a map", OpenAIStrict, `{"type":"object","properties":{"tags":{"type":"object","properties":{},"additionalProperties":{"type":"string"}}},"required":["tags"],"additionalProperties":false}`,
		[]string{"#/properties/tags/additionalProperties openai-strict/additional-properties"}},
	{"a member not required", OpenAIStrict, `{"type":"object","properties":{"location":{"type":"string"},"unit":{"type":"string"}},"additionalProperties":false,"required":["location"]}`,
		[]string{"#/properties/unit openai-strict/optional-member"}},
	{"no properties, as MCP servers list a tool without arguments", OpenAIStrict, `{"type":"object"}`,
		[]string{"# openai-strict/additional-properties", "# openai-strict/object-without-properties"}},
	{"anyOf at the root", OpenAIStrict, `{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false},{"type":"object","properties":{"b":{"type":"string"}},"required":["b"],"additionalProperties":false}]}`,
		[]string{"# openai-strict/root-not-object", "#/anyOf openai-strict/root-composition"}},
	// docker/docker-agent#4106: a hand-written check took this for strict-compatible.
	{"oneOf, as docker-agent classified it", OpenAIStrict, `{"type":"object","properties":{"value":{"oneOf":[{"type":"integer"},{"type":"string"}]}}}`,
		[]string{"# openai-strict/additional-properties", "#/properties/value openai-strict/optional-member", "#/properties/value/oneOf openai-strict/one-of"}},
	{"oneOf in $defs", OpenAIStrict, `{"type":"object","properties":{"v":{"$ref":"#/$defs/v"}},"required":["v"],"additionalProperties":false,"$defs":{"v":{"oneOf":[{"type":"integer"},{"type":"string"}]}}}`,
		[]string{"#/$defs/v/oneOf openai-strict/one-of"}},
	{"allOf", OpenAIStrict, `{"type":"object","properties":{"x":{"allOf":[{"type":"string"},{"type":"string","pattern":"^a"}]}},"required":["x"],"additionalProperties":false}`,
		[]string{"#/properties/x/allOf openai-strict/composition"}},
	{"a format it does not know", OpenAIStrict, `{"type":"object","properties":{"url":{"type":"string","format":"uri"}},"required":["url"],"additionalProperties":false}`,
		[]string{"#/properties/url/format openai-strict/format"}},
	{"an array of anything", OpenAIStrict, `{"type":"object","properties":{"value":{"type":["string","array"]}},"required":["value"],"additionalProperties":false}`,
		[]string{"#/properties/value openai-strict/array-without-items"}},
	{"a member without a type", OpenAIStrict, `{"type":"object","properties":{"table":{"description":"the table"}},"required":["table"],"additionalProperties":false}`,
		[]string{"#/properties/table openai-strict/untyped"}},

	// Anthropic.
	{"the guide's get_weather", Anthropic, `{"type":"object","properties":{"location":{"type":"string"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["location"]}`, nil},
	{"bounds, without strict", Anthropic, `{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":10}},"required":["n"]}`, nil},
	{"oneOf at the root", Anthropic, `{"oneOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"object","properties":{"b":{"type":"string"}}}]}`,
		[]string{"#/oneOf anthropic/root-composition"}},
	{"search_flights, strict", AnthropicStrict, `{"type":"object","properties":{"destination":{"type":"string"},"date":{"type":"string","format":"date"}},"required":["destination","date"],"additionalProperties":false}`, nil},
	{"optional members, strict", AnthropicStrict, `{"type":"object","properties":{"notes":{"type":"string"},"name":{"type":"string"}},"required":["name"],"additionalProperties":false}`, nil},
	{"a union, strict", AnthropicStrict, `{"type":"object","properties":{"x":{"type":["string","null"]}},"required":["x"],"additionalProperties":false}`, nil},
	{"definitions, strict", AnthropicStrict, `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"required":["a"],"additionalProperties":false,"$defs":{"A":{"type":"object","properties":{"v":{"type":"string"}},"required":["v"],"additionalProperties":false}}}`, nil},
	{"open object, strict", AnthropicStrict, `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`,
		[]string{"# anthropic-strict/additional-properties"}},
	{"minimum, strict", AnthropicStrict, `{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"],"additionalProperties":false}`,
		[]string{"#/properties/n/minimum anthropic-strict/number-bounds"}},
	{"maxLength, strict", AnthropicStrict, `{"type":"object","properties":{"s":{"type":"string","maxLength":10}},"required":["s"],"additionalProperties":false}`,
		[]string{"#/properties/s/maxLength anthropic-strict/string-length"}},
	{"minItems 2, strict", AnthropicStrict, `{"type":"object","properties":{"xs":{"type":"array","items":{"type":"string"},"minItems":2}},"required":["xs"],"additionalProperties":false}`,
		[]string{"#/properties/xs/minItems anthropic-strict/array-bounds"}},
	{"minItems 1, strict", AnthropicStrict, `{"type":"object","properties":{"xs":{"type":"array","items":{"type":"string"},"minItems":1}},"required":["xs"],"additionalProperties":false}`, nil},
	{"recursion, strict", AnthropicStrict, `{"type":"object","properties":{"root":{"$ref":"#/$defs/Node"}},"required":["root"],"additionalProperties":false,"$defs":{"Node":{"type":"object","properties":{"child":{"$ref":"#/$defs/Node"}},"required":[],"additionalProperties":false}}}`,
		[]string{"#/$defs/Node/properties/child/$ref anthropic-strict/recursion"}},
	{"an object in an enum, strict", AnthropicStrict, `{"type":"object","properties":{"e":{"enum":[{"a":1},"x"]}},"required":["e"],"additionalProperties":false}`,
		[]string{"#/properties/e/enum/0 anthropic-strict/enum-values"}},
	{"a lookahead, strict", AnthropicStrict, `{"type":"object","properties":{"p":{"type":"string","pattern":"^(?=a)\\w+$"}},"required":["p"],"additionalProperties":false}`,
		[]string{"#/properties/p/pattern anthropic-strict/pattern"}},
	{"oneOf at the root, strict", AnthropicStrict, `{"oneOf":[{"type":"object","properties":{},"additionalProperties":false}]}`,
		[]string{"#/oneOf anthropic-strict/root-composition"}},
	{"an external $ref, strict", AnthropicStrict, `{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}},"required":["a"],"additionalProperties":false}`,
		[]string{"#/properties/a/$ref anthropic-strict/external-ref"}},
	{"allOf with $ref, strict", AnthropicStrict, `{"type":"object","properties":{"a":{"allOf":[{"$ref":"#/$defs/A"}]}},"required":["a"],"additionalProperties":false,"$defs":{"A":{"type":"string"}}}`,
		[]string{"#/properties/a/allOf/0/$ref anthropic-strict/ref-in-all-of"}},
	{"25 optional parameters, strict", AnthropicStrict, manyOptional(25),
		[]string{"# anthropic-strict/optional-parameters"}},
	{"24 optional parameters, strict", AnthropicStrict, manyOptional(24), nil},

	// Gemini, parameters.
	{"the reference's example", Gemini, `{"type":"OBJECT","properties":{"param1":{"type":"STRING"},"param2":{"type":"INTEGER"}},"required":["param1"]}`, nil},
	{"an enum", Gemini, `{"type":"object","properties":{"direction":{"type":"string","format":"enum","enum":["EAST","NORTH","SOUTH","WEST"]}},"required":["direction"]}`, nil},
	{"nullable", Gemini, `{"type":"object","properties":{"note":{"type":"string","nullable":true}}}`, nil},
	{"anyOf", Gemini, `{"type":"object","properties":{"v":{"anyOf":[{"type":"integer"},{"type":"string"}]}},"required":["v"]}`, nil},
	{"number widths", Gemini, `{"type":"object","properties":{"n":{"type":"integer","format":"int64"},"x":{"type":"number","format":"double"}}}`, nil},
	{"additionalProperties", Gemini, `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`,
		[]string{"#/additionalProperties gemini/unknown-field"}},
	{"$schema", Gemini, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"string"}}}`,
		[]string{"#/$schema gemini/unknown-field"}},
	{"const", Gemini, `{"type":"object","properties":{"kind":{"const":"a"}}}`,
		[]string{"#/properties/kind/const gemini/unknown-field"}},
	{"a list of types", Gemini, `{"type":"object","properties":{"s":{"type":["string","null"]}}}`,
		[]string{"#/properties/s/type gemini/type-list"}},
	{"an array of anything", Gemini, `{"type":"object","properties":{"parts":{"type":"array"}}}`,
		[]string{"#/properties/parts gemini/array-without-items"}},
	{"$ref", Gemini, `{"type":"object","properties":{"t":{"$ref":"#/$defs/T"}},"$defs":{"T":{"type":"object","properties":{"n":{"type":"string"}}}}}`,
		[]string{"#/properties/t/$ref gemini/unknown-field", "#/$defs gemini/unknown-field"}},
	{"uniqueItems", Gemini, `{"type":"object","properties":{"xs":{"type":"array","items":{"type":"string"},"uniqueItems":true}}}`,
		[]string{"#/properties/xs/uniqueItems gemini/unknown-field"}},
	{"an enum of booleans", Gemini, `{"type":"object","properties":{"b":{"type":"boolean","enum":[true,false]}}}`,
		[]string{"#/properties/b/enum/0 gemini/enum-values"}},
	{"format uri", Gemini, `{"type":"object","properties":{"u":{"type":"string","format":"uri"}}}`,
		[]string{"#/properties/u/format gemini/format"}},
	{"a root without a type", Gemini, `{"properties":{"a":{"type":"string"}}}`,
		[]string{"# gemini/root-without-type"}},
	{"default", Gemini, `{"type":"object","properties":{"n":{"type":"integer","default":3}}}`,
		[]string{"#/properties/n/default gemini/default"}},
}

// manyOptional is an object schema of n optional string members.
func manyOptional(n int) string {
	var props []string
	for i := range n {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"string"}`, i))
	}
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `},"additionalProperties":false}`
}

func TestLintFor(t *testing.T) {
	for _, c := range providerCases {
		t.Run(string(c.target)+"/"+c.name, func(t *testing.T) {
			advice, err := LintFor(c.target, []byte(c.schema))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range advice {
				got = append(got, a.Location+" "+a.Rule)
				if a.Effect == "" || a.Message == "" {
					t.Errorf("%v: no effect or no message", a)
				}
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(c.want))
			if !slices.Equal(got, want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestLintForLimits: the sums a provider bounds are counted over the whole schema, and
// exceeded only past the limit.
func TestLintForLimits(t *testing.T) {
	enum := func(n int) string {
		var values []string
		for i := range n {
			values = append(values, fmt.Sprintf(`"v%d"`, i))
		}
		return `{"type":"object","properties":{"e":{"type":"string","enum":[` + strings.Join(values, ",") + `]}},"required":["e"],"additionalProperties":false}`
	}
	nested := func(levels int) string {
		s := `{"type":"string"}`
		for range levels {
			s = `{"type":"object","properties":{"a":` + s + `},"required":["a"],"additionalProperties":false}`
		}
		return s
	}
	for _, c := range []struct {
		name, schema, rule string
		found              bool
	}{
		{"1000 enum values", enum(1000), "openai-strict/enum-values", false},
		{"1001 enum values", enum(1001), "openai-strict/enum-values", true},
		{"10 levels", nested(10), "openai-strict/nesting", false},
		{"11 levels", nested(11), "openai-strict/nesting", true},
	} {
		advice, err := LintFor(OpenAIStrict, []byte(c.schema))
		if err != nil {
			t.Fatal(err)
		}
		found := slices.ContainsFunc(advice, func(a Advice) bool { return a.Rule == c.rule })
		if found != c.found {
			t.Errorf("%s: %s found %v, want %v: %v", c.name, c.rule, found, c.found, advice)
		}
	}
}

// TestLintForEveryRuleTested: each rule of the table is found by some case above, and has
// a source.
func TestLintForEveryRuleTested(t *testing.T) {
	found := map[string]bool{"openai-strict/properties": true, "openai-strict/text": true, "openai-strict/large-enum": true, "anthropic-strict/union-parameters": true}
	for _, c := range providerCases {
		for _, w := range c.want {
			_, rule, _ := strings.Cut(w, " ")
			found[rule] = true
		}
	}
	found["openai-strict/enum-values"], found["openai-strict/nesting"] = true, true // TestLintForLimits
	for _, r := range providerRules {
		id := string(r.target) + "/" + r.id
		if !found[id] {
			t.Errorf("%s: no case finds it", id)
		}
		if r.source == "" || (r.at == nil) == (r.total == nil) || r.at != nil && r.says == "" {
			t.Errorf("%s: a source, one matcher and, for a matcher of subschemas, a message are needed", id)
		}
	}
}

func TestLintForRefusesWhatIsNoSchema(t *testing.T) {
	for _, s := range []string{`{"type":`, `"object"`, `[]`} {
		if _, err := LintFor(OpenAIStrict, []byte(s)); err == nil {
			t.Errorf("%s: no error", s)
		}
	}
	if _, err := LintFor("mistral", []byte(`{}`)); err == nil {
		t.Error("an unknown target: no error")
	}
}

// TestProvidersDoc: docs/providers.md has a row for each rule, with its effect, and
// none for a rule the code lacks; and it says when the sources were read.
func TestProvidersDoc(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "providers.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for line := range strings.Lines(string(doc)) {
		cells := strings.Split(line, "|")
		if len(cells) > 3 && strings.Contains(cells[1], "/") && strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			rows[strings.Trim(strings.TrimSpace(cells[1]), "`")] = strings.TrimSpace(cells[2])
		}
	}
	for _, r := range providerRules {
		id := string(r.target) + "/" + r.id
		if effect, ok := rows[id]; !ok || effect != string(r.effect) {
			t.Errorf("%s: the doc's row says %q, want %q", id, effect, r.effect)
		}
		delete(rows, id)
	}
	for id := range rows {
		t.Errorf("%s: a row for no rule", id)
	}
	if !strings.Contains(string(doc), "read on "+sourcesRead) {
		t.Errorf("the doc does not say the sources were read on %s", sourcesRead)
	}
}
