package guard

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

// TestDynamicScopesBounded: a schema whose dynamic scopes multiply at each of ten levels
// (four resources to choose from at each, each binding its own anchor) is refused once
// compiling per scope spends scopeGrowth times what the schema compiles to without them,
// within 64 MB, with anchor names of 2 characters (6 KB of schema) or of 1,000 (86 KB).
func TestDynamicScopesBounded(t *testing.T) {
	for _, nameLen := range []int{2, 1000} {
		schema := dynamicLevels(10, 4, nameLen)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := Compile([]byte(schema))
		runtime.ReadMemStats(&after)
		var se *SchemaError
		if !errors.As(err, &se) || !strings.Contains(se.Reason, fmt.Sprintf("more than %d times", scopeGrowth)) {
			t.Fatalf("names of %d: got %v, want the refusal of too many scoped schemas", nameLen, err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
			t.Errorf("compiling %d bytes of schema allocated %d MB", len(schema), n>>20)
		}
	}
}

// dynamicLevels is a schema of the given levels, each of choices resources that bind an
// anchor of the level, its name nameLen characters long, and reach every resource of the
// next level.
func dynamicLevels(levels, choices, nameLen int) string {
	var defs []string
	for l := range levels {
		name := fmt.Sprintf("n%0*d", nameLen-1, l)
		for i := range choices {
			next := `true`
			if l+1 < levels {
				var alts []string
				for j := range choices {
					alts = append(alts, fmt.Sprintf(`{"$ref":"r%d_%d"}`, l+1, j))
				}
				next = `{"anyOf":[` + strings.Join(alts, ",") + `]}`
			}
			defs = append(defs, fmt.Sprintf(`"r%d_%d":{"$id":"r%d_%d","$dynamicAnchor":"%s","properties":{"x":{"$dynamicRef":"#%s"}},"allOf":[%s]}`,
				l, i, l, i, name, name, next))
		}
	}
	return `{"$id":"https://example.com/root","$defs":{` + strings.Join(defs, ",") + `},"allOf":[{"$ref":"r0_0"},{"$ref":"r0_1"}]}`
}

// dynamicChain is a schema of n resources, each binding a dynamic anchor of its own, its
// name nameLen characters long, and reaching the next: every resource is compiled in the
// scope of each resource before it.
func dynamicChain(n, nameLen int) string {
	var defs []string
	for i := range n {
		name := fmt.Sprintf("a%0*d", nameLen-1, i)
		next := "true"
		if i+1 < n {
			next = fmt.Sprintf(`{"properties":{"next":{"$ref":"r%d"}}}`, i+1)
		}
		defs = append(defs, fmt.Sprintf(`"r%d":{"$id":"r%d","$dynamicAnchor":"%s","properties":{"x":{"$dynamicRef":"#%s"}},"allOf":[%s]}`,
			i, i, name, name, next))
	}
	return `{"$id":"https://example.com/root","$defs":{` + strings.Join(defs, ",") + `},"$ref":"r0"}`
}

// TestDynamicCompileLinear: compiling schemas whose dynamic scopes multiply costs, in
// bytes and in allocations, a bounded amount a byte of schema at 10 KB, 100 KB and 300 KB,
// with anchor names of 100 and of 1,000 characters, refused or not; and no more a byte at
// 300 KB than at 100 KB.
func TestDynamicCompileLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	for _, nameLen := range []int{100, 1000} {
		var last float64
		for _, size := range []int{10 << 10, 100 << 10, 300 << 10} {
			schema := dynamicChain(max(size/(nameLen*2+130), 2), nameLen)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := Compile([]byte(schema))
			runtime.ReadMemStats(&after)
			bytes, allocs := after.TotalAlloc-before.TotalAlloc, after.Mallocs-before.Mallocs
			perByte := float64(bytes) / float64(len(schema))
			t.Logf("names of %d, %d bytes: %.0f B and %.2f allocations a byte (%v)", nameLen, len(schema), perByte, float64(allocs)/float64(len(schema)), err)
			if n := uint64(len(schema)); bytes > 150*n+(1<<20) || allocs > n+20_000 {
				t.Errorf("names of %d, %d bytes of schema: %d bytes and %d allocations", nameLen, n, bytes, allocs)
			}
			if size == 300<<10 && perByte > 1.5*last {
				t.Errorf("names of %d: %.0f B a byte of schema at 300 KB, %.0f at 100 KB", nameLen, perByte, last)
			}
			last = perByte
		}
	}
}
