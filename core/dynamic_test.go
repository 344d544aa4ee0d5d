package core

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// tree is a generic tree whose nodes a $dynamicRef reaches; strictTree extends it, closing
// every node, as the JSON Schema specification's own example does.
const (
	tree       = `"tree":{"$id":"tree","$dynamicAnchor":"node","type":"object","properties":{"data":true,"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}`
	strictTree = `{"$id":"https://example.com/strict-tree","$dynamicAnchor":"node","$ref":"tree","unevaluatedProperties":false,"$defs":{` + tree + `}}`
	looseTree  = `{"$id":"https://example.com/loose-tree","$ref":"tree","$defs":{` + tree + `}}`
)

func TestDynamicRef(t *testing.T) {
	cases := []struct{ name, schema, args, want string }{
		{"the extension closes every node", strictTree, `{"children":[{"data":1,"daat":2}]}`, "unexpected property 'children[0].daat'"},
		{"the extension closes the root", strictTree, `{"daat":1}`, "unexpected property 'daat'"},
		{"what the tree allows", strictTree, `{"data":1,"children":[{"children":[{"data":2}]}]}`, ""},
		{"without the extension, nodes stay open", looseTree, `{"children":[{"data":1,"daat":2}]}`, ""},
		{"the tree's own keywords", looseTree, `{"children":[{"children":3}]}`, "property 'children[0].children' must be array"},
		{"2019-09 $recursiveRef", `{"$schema":"https://json-schema.org/draft/2019-09/schema","$id":"https://example.com/r","$recursiveAnchor":true,
			"$ref":"list","unevaluatedProperties":false,"$defs":{"list":{"$id":"list","$recursiveAnchor":true,"properties":{"next":{"$recursiveRef":"#"}}}}}`,
			`{"next":{"next":{"x":1}}}`, "unexpected property 'next.next.x'"},
		{"2019-09 $recursiveRef without an outer anchor", `{"$schema":"https://json-schema.org/draft/2019-09/schema","$id":"https://example.com/r",
			"$ref":"list","unevaluatedProperties":false,"$defs":{"list":{"$id":"list","$recursiveAnchor":true,"properties":{"next":{"$recursiveRef":"#"}}}}}`,
			`{"next":{"next":{"x":1}}}`, ""},
		{"$dynamicRef means nothing in 2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","properties":{"a":{"$dynamicRef":"#/$defs/s"}},"$defs":{"s":{"type":"string"}}}`,
			`{"a":1}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := check(t, c.schema, c.args); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestDynamicScopesBounded: a schema of 6 KB whose dynamic scopes multiply at each of ten
// levels (four resources to choose from at each, each binding its own anchor) is refused
// once compiling per scope makes maxScopedNodes schemas, within 64 MB.
func TestDynamicScopesBounded(t *testing.T) {
	const choices, levels = 4, 10
	var defs []string
	for l := range levels {
		for i := range choices {
			next := `true`
			if l+1 < levels {
				var alts []string
				for j := range choices {
					alts = append(alts, fmt.Sprintf(`{"$ref":"r%d_%d"}`, l+1, j))
				}
				next = `{"anyOf":[` + strings.Join(alts, ",") + `]}`
			}
			defs = append(defs, fmt.Sprintf(`"r%d_%d":{"$id":"r%d_%d","$dynamicAnchor":"n%d","properties":{"x":{"$dynamicRef":"#n%d"}},"allOf":[%s]}`,
				l, i, l, i, l, l, next))
		}
	}
	schema := `{"$id":"https://example.com/root","$defs":{` + strings.Join(defs, ",") + `},"allOf":[{"$ref":"r0_0"},{"$ref":"r0_1"}]}`
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Compile([]byte(schema))
	runtime.ReadMemStats(&after)
	var se *SchemaError
	if !errors.As(err, &se) || !strings.Contains(se.Reason, fmt.Sprintf("more than %d schemas", maxScopedNodes)) {
		t.Fatalf("got %v, want the refusal of too many scoped schemas", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
		t.Errorf("compiling %d bytes of schema allocated %d MB", len(schema), n>>20)
	}
}
