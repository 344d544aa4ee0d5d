package conformance

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate"
	"github.com/mcpvalidate/mcpvalidate/guard"
)

// TestRefusalsNameTheFix counts, over the MCP and real-server corpora, the violations
// whose text names the exact fix, for each formatter: for a wrong type, the type expected
// and the type sent; for an unexpected name, the declared name meant; for a missing
// required name on an object that allows other names, the name sent in its place; for an
// enum value, the allowed value meant. What was meant is judged here, apart from the
// formatter: a declared name absent from the object that differs from the unexpected one
// in case or by at most two letters, a name sent that is the missing one with its second
// letter dropped, an allowed string that the one sent equals but for case and surrounding
// spaces. DetailedFormat must name every wrong type's sent type.
func TestRefusalsNameTheFix(t *testing.T) {
	for _, set := range []string{"as given", "with the model's slips"} {
		var j judge
		for _, f := range loadCorpus(t) {
			if f.Name != "mcp-cases-public.json" && f.Name != "real-servers-public.json" {
				continue
			}
			for _, g := range f.Groups {
				v, err := mcpvalidate.Compile(g.Schema, append(ourOptions(g), guard.WithHints())...)
				if err != nil {
					continue
				}
				var schema any
				_ = json.Unmarshal(g.Schema, &schema)
				for _, tc := range g.Tests {
					if set == "as given" {
						j.refusal(v, schema, tc.Data)
						continue
					}
					if tc.Valid {
						for _, slip := range slips(schema, tc.Data) {
							j.refusal(v, schema, slip)
						}
					}
				}
			}
		}
		t.Logf("%s: %d refusals with a fix to name: %d wrong types, %d names meant, %d values meant", set, j.found.refusals, j.found.types, j.found.names, j.found.values)
		t.Logf("| formatter | sent type named | name meant named | value meant named | refusals naming every fix |")
		for i, fm := range formatters {
			n := j.named[i]
			t.Logf("| %s | %d/%d | %d/%d | %d/%d | %d/%d |", fm.name, n.types, j.found.types, n.names, j.found.names, n.values, j.found.values, n.refusals, j.found.refusals)
		}
		if d := j.named[2]; d != j.found || j.found.refusals == 0 {
			t.Errorf("%s: DetailedFormat named %+v of the fixes %+v", set, d, j.found)
		}
	}
}

var formatters = []struct {
	name string
	f    guard.Formatter
}{{"default", guard.DefaultFormat}, {"gateway", guard.GatewayFormat}, {"detailed", guard.DetailedFormat}}

// A judge counts the fixes that refusals call for, and those each formatter names.
type judge struct {
	found tally
	named [3]tally // by formatter
}

type tally struct{ types, names, values, refusals int }

func (j *judge) refusal(v *mcpvalidate.Validator, schema any, args json.RawMessage) {
	vs := v.Validate(args)
	var data any
	_ = json.Unmarshal(args, &data)
	type fix struct {
		count func(*tally) *int
		named func(text string) bool
	}
	var fixes []fix
	for _, x := range vs {
		sent, ok := at(data, x.Path)
		switch {
		case x.Kind == guard.KindRequired && len(x.Path) > 0:
			parent, _ := at(data, x.Path[:len(x.Path)-1])
			if slip := slipOf(schema, x.Path, parent); slip != "" {
				fixes = append(fixes, fix{func(t *tally) *int { return &t.names }, func(m string) bool { return strings.Contains(m, "(sent '"+slip+"')") }})
			}
		case !ok:
		case x.Kind == guard.KindType:
			got := typeOf(sent)
			fixes = append(fixes, fix{func(t *tally) *int { return &t.types }, func(m string) bool { return strings.Contains(m, "not "+got) }})
		case x.Kind == guard.KindAdditional:
			parent, _ := at(data, x.Path[:len(x.Path)-1])
			if meant := meantName(schema, x.Path, parent); meant != "" {
				fixes = append(fixes, fix{func(t *tally) *int { return &t.names }, func(m string) bool { return strings.Contains(m, meant+"'?") }})
			}
		case x.Kind == guard.KindEnum:
			if s, isString := sent.(string); isString {
				if meant := meantValue(s, x.Values); meant != "" {
					fixes = append(fixes, fix{func(t *tally) *int { return &t.values }, func(m string) bool { return strings.Contains(m, "'"+meant+"'?") }})
				}
			}
		}
	}
	if len(fixes) == 0 {
		return
	}
	j.found.refusals++
	for _, fx := range fixes {
		*fx.count(&j.found)++
	}
	for i, fm := range formatters {
		text := strings.Join(guard.Messages(vs, fm.f), "\n")
		all := true
		for _, fx := range fixes {
			if fx.named(text) {
				*fx.count(&j.named[i])++
			} else {
				all = false
			}
		}
		if all {
			j.named[i].refusals++
		}
	}
}

// slips makes, from valid arguments, the mistakes models make: each top-level member's
// name with its second letter dropped, each string member of an enum in capitals, each
// member that takes no null given null.
func slips(schema any, args json.RawMessage) []json.RawMessage {
	var obj map[string]any
	if json.Unmarshal(args, &obj) != nil || obj == nil {
		return nil
	}
	m, _ := schema.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	var out []json.RawMessage
	with := func(change func(map[string]any)) {
		c := make(map[string]any, len(obj))
		for k, v := range obj {
			c[k] = v
		}
		change(c)
		b, _ := json.Marshal(c)
		out = append(out, b)
	}
	for name, value := range obj {
		p, _ := props[name].(map[string]any)
		if p == nil {
			continue
		}
		if len(name) >= 4 {
			slip := name[:1] + name[2:]
			if _, taken := props[slip]; !taken {
				with(func(c map[string]any) { delete(c, name); c[slip] = value })
			}
		}
		if s, ok := value.(string); ok && p["enum"] != nil && strings.ToUpper(s) != s {
			with(func(c map[string]any) { c[name] = strings.ToUpper(s) })
		}
		if t, _ := p["type"].(string); t != "" && t != "null" {
			with(func(c map[string]any) { c[name] = nil })
		}
	}
	return out
}

// at returns the decoded value at p.
func at(data any, p guard.Path) (any, bool) {
	for _, e := range p {
		switch d := data.(type) {
		case map[string]any:
			v, ok := d[e.Name]
			if !ok || e.IsIndex {
				return nil, false
			}
			data = v
		case []any:
			if !e.IsIndex || e.Index >= len(d) {
				return nil, false
			}
			data = d[e.Index]
		default:
			return nil, false
		}
	}
	return data, true
}

func typeOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	}
	return "object"
}

// meantName returns the name declared beside an unexpected one, absent from the object
// sent, that differs from it in case or by at most two letters.
func meantName(schema any, p guard.Path, sent any) string {
	obj, _ := sent.(map[string]any)
	for _, e := range p[:len(p)-1] {
		m, _ := schema.(map[string]any)
		props, _ := m["properties"].(map[string]any)
		if e.IsIndex {
			schema = m["items"]
		} else {
			schema = props[e.Name]
		}
	}
	m, _ := schema.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	unexpected := strings.ToLower(p[len(p)-1].Name)
	for name := range props {
		if _, present := obj[name]; !present && levenshtein(unexpected, strings.ToLower(name)) <= 2 {
			return name
		}
	}
	return ""
}

// slipOf returns the name sent, in an object that allows undeclared members, that is the
// missing required name at p with its second letter dropped.
func slipOf(schema any, p guard.Path, sent any) string {
	obj, _ := sent.(map[string]any)
	for _, e := range p[:len(p)-1] {
		m, _ := schema.(map[string]any)
		props, _ := m["properties"].(map[string]any)
		if e.IsIndex {
			schema = m["items"]
		} else {
			schema = props[e.Name]
		}
	}
	m, _ := schema.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	missing := p[len(p)-1].Name
	if m["additionalProperties"] == false || len(missing) < 4 {
		return ""
	}
	slip := missing[:1] + missing[2:]
	if _, present := obj[slip]; !present || props[slip] != nil {
		return ""
	}
	return slip
}

// meantValue returns the allowed string equal to s but for case and surrounding spaces.
func meantValue(s string, allowed []string) string {
	for _, a := range allowed {
		if u, err := strconv.Unquote(a); err == nil && strings.EqualFold(strings.TrimSpace(s), u) {
			return u
		}
	}
	return ""
}

func levenshtein(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
		}
	}
	return d[len(a)][len(b)]
}
