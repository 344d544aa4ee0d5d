package guard

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// heldSchemas are schemas of each sort the cache must count at what they hold, and how
// many of them hold about four times the budget of TestCacheHoldsItsBudget; i makes each
// text distinct.
var heldSchemas = []struct {
	name  string
	count int
	text  func(i int) string
}{
	{"plain", 2000, func(i int) string {
		return fmt.Sprintf(`{"type":"object","properties":{"days":{"type":"integer","maximum":%d},"units":{"enum":["c","f","k"]}},"required":["days"]}`, i)
	}},
	{"patterns of 60 bytes", 1000, func(i int) string {
		return fmt.Sprintf(`{"type":"object","properties":{"id":{"type":"string","pattern":"^[A-Za-z0-9._%%+-]{1,64}@[A-Za-z0-9.-]{1,63}\\.[a-z]{2,24}%d$"}}}`, i)
	}},
	{"long repetitions", 16, func(i int) string {
		var props []string
		for m := range 8 {
			props = append(props, fmt.Sprintf(`"m%d":{"type":"string","pattern":"^(?:[a-z]+-){1,100}[0-9]{1,100}-%d$"}`, m, i))
		}
		return `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
	}},
	{"wide runs", 60, func(i int) string {
		return fmt.Sprintf(`{"type":"object","properties":{"k":{"type":"string","pattern":"^[a-z0-9_]{0,1000}-[0-9]{1,1000}-%d$"}}}`, i)
	}},
	{"dynamic scopes", 40, func(i int) string {
		return strings.Replace(dynamicLevels(5, 2, 8), "example.com/root", fmt.Sprint("example.com/root", i), 1)
	}},
}

// TestCacheHoldsItsBudget: a guard's cache filled with four times its budget of compiled
// schemas of each sort, and with many times of all sorts, by the subset or the full
// engine, each called once, validly and not, holds at most twice its budget of live heap.
func TestCacheHoldsItsBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	all := len(heldSchemas)
	for sort := range all + 2 {
		name, count, opts := "all", 200, []Option{WithCacheBudget(heldBudget)}
		switch {
		case sort < all:
			name, count = heldSchemas[sort].name, heldSchemas[sort].count
		case sort > all:
			name, opts = "all, full engine", append(opts, WithFullEngine())
		}
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			g := New(opts...)
			for i := range count {
				k := sort
				if k >= all {
					k = i % all
				}
				s := g.Bind(i, nil, []byte(heldSchemas[k].text(i)), nil)
				for _, args := range []string{`{}`, `[]`} {
					g.Check(&Call{Tool: "t"}, s, []byte(args), nil)
				}
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			st := g.CacheStats()
			t.Logf("%d compiled, %d held, %d bytes by the count, %.1f MB of live heap", st.Compiled, st.Texts, st.Held, float64(live)/(1<<20))
			if live > 2*heldBudget {
				t.Errorf("the cache holds %.1f MB of live heap, over twice its budget of %d MB (%d bytes by its count)", float64(live)/(1<<20), heldBudget>>20, st.Held)
			}
			runtime.KeepAlive(g)
		})
	}
}

const heldBudget = 2 << 20

// TestFailedCompileKept: a schema that fails to compile, however large its text and
// costly its failure, stays in the cache with its error, so that calls alternating between
// it and another tool under a small budget compile each schema once.
func TestFailedCompileKept(t *testing.T) {
	g := New(WithCacheBudget(1 << 20))
	texts := map[string]string{
		"broken": dynamicLevels(10, 4, 1000),
		"plain":  heldSchemas[0].text(0),
	}
	for range 10 {
		for _, tool := range []string{"broken", "plain"} {
			s := g.Lookup(tool)
			if s == nil {
				s = g.Bind(tool, nil, []byte(texts[tool]), nil)
			}
			g.Check(&Call{Tool: tool}, s, []byte(`{}`), nil)
		}
	}
	st := g.CacheStats()
	if st.Compiled != 2 || st.Held > 1<<20 {
		t.Errorf("after 10 calls to each of 2 tools: %+v, want 2 compilations within the budget", st)
	}
	if st.Hits+st.Misses != 20 || st.Misses != st.Evicted+int64(st.Bindings) {
		t.Errorf("cache counts %+v: want 20 lookups, each miss bound and then evicted or still bound", st)
	}
}

// callBound checks one call to the tool key, as an adapter does: its schema found by the
// key, or bound to it on the key's first call.
func callBound(g *Guard, key string, schema []byte, args string) Verdict {
	s := g.Lookup(key)
	if s == nil {
		s = g.Bind(key, nil, schema, nil)
	}
	return g.Check(&Call{Tool: key}, s, []byte(args), nil)
}

// TestCacheBudgetEvictsGradually: 500 tools that come and go, each with a schema of its
// own, while one tool is called all along, keep the cache within a budget of 20 such
// tools; the clock evicts the cold ones one at a time, never the one in use, and never
// empties the cache.
func TestCacheBudgetEvictsGradually(t *testing.T) {
	schema := func(i int) []byte {
		return fmt.Appendf(nil, `{"type":"object","properties":{"days":{"type":"integer","maximum":%d}}}`, 1000+i)
	}
	weather := []byte(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`)
	probe := New()
	callBound(probe, "probe", schema(0), `{"days":1}`)
	budget := 20 * probe.CacheStats().Held
	g := New(WithCacheBudget(budget))
	for i := range 500 {
		if vd := callBound(g, fmt.Sprint("tool-", i), schema(i), `{"days":1}`); vd.Found() {
			t.Fatalf("tool-%d refused a valid call: %s", i, vd.Text())
		}
		if vd := callBound(g, "weather", weather, `{"location":"Paris"}`); vd.Found() {
			t.Fatalf("weather refused a valid call: %s", vd.Text())
		}
		if held := g.CacheStats().Held; held > budget {
			t.Fatalf("after %d tools the cache holds %d bytes, over its budget of %d", i+1, held, budget)
		}
	}
	st := g.CacheStats()
	if st.Compiled != 501 {
		t.Errorf("%d compilations, want 501: weather's schema, called all along, was evicted", st.Compiled)
	}
	if st.Texts < 10 {
		t.Errorf("the cache keeps %d compilations: eviction is not gradual", st.Texts)
	}
	if g.Lookup("weather") == nil || g.Lookup("tool-0") != nil {
		t.Errorf("weather's binding evicted, or the first tool's kept")
	}
}

// TestBindingsShareATextCompiledOnce: keys bound to equal texts share one compilation,
// and each binding is counted; a key bound again to the same text keeps its binding, to
// another text is bound to that.
func TestBindingsShareATextCompiledOnce(t *testing.T) {
	g := New()
	text := []byte(`{"type":"object","properties":{"e":{"enum":["a","b"]}}}`)
	for i := range 7 {
		if vd := callBound(g, fmt.Sprint("copy-", i), text, `{"e":"a"}`); vd.Found() {
			t.Fatalf("copy-%d refused a valid call: %s", i, vd.Text())
		}
		if vd := callBound(g, fmt.Sprint("copy-", i), text, `{"e":"c"}`); !vd.Refused() {
			t.Fatalf("copy-%d accepted a value outside the enum", i)
		}
	}
	if st := g.CacheStats(); st.Compiled != 1 || st.Texts != 1 || st.Bindings != 7 {
		t.Errorf("7 keys with one schema text: %+v, want 1 compilation, 1 text and 7 bindings", st)
	}
	if s := g.Bind("copy-0", nil, text, nil); s != g.Lookup("copy-0") || g.CacheStats().Bindings != 7 {
		t.Errorf("binding a bound key again to its text made another binding")
	}
	if s := g.Bind("copy-0", nil, []byte(`{}`), nil); s != g.Lookup("copy-0") || s.text != `{}` {
		t.Errorf("a key bound again to another text kept its first schema")
	}
	if st := g.CacheStats(); st.Texts != 2 || st.Bindings != 7 {
		t.Errorf("one of 7 keys bound to another text: %+v, want 2 texts and 7 bindings", st)
	}
}

// TestCacheBoundedWhenTextsRepeat: 100,000 keys bound to a few texts, as a tool registered
// again and again with the same schema, or the same session tools for each of many
// sessions, each called once, keep the cache within its budget: the bindings of a text are
// evicted as any other when cold, and the text is compiled once while one is bound.
func TestCacheBoundedWhenTextsRepeat(t *testing.T) {
	texts := [][]byte{[]byte(weatherSchema), []byte(heldSchemas[0].text(1))}
	for _, n := range []int{1, len(texts)} {
		t.Run(fmt.Sprint(n, " texts"), func(t *testing.T) {
			const budget = 256 << 10
			g := New(WithCacheBudget(budget))
			most := int64(0)
			for i := range 100_000 {
				if vd := callBound(g, fmt.Sprint("key-", i), texts[i%n], `{"location":"Paris","days":1}`); vd.Refused() {
					t.Fatalf("key-%d refused a valid call: %s", i, vd.Text())
				}
				most = max(most, g.CacheStats().Held)
			}
			st := g.CacheStats()
			if most > budget || st.Bindings > 5000 {
				t.Errorf("100,000 keys of %d texts: %+v, up to %d bytes held, over the budget of %d", n, st, most, budget)
			}
			if st.Compiled != int64(n) {
				t.Errorf("%d compilations of %d texts: a text was dropped while bound", st.Compiled, n)
			}
		})
	}
}

// TestValuesCountedAtWhatTheyHold: schemas whose const and enum values are objects and
// arrays of many members, compiled, are counted at no less than the heap they hold, and at
// no more than twice it.
func TestValuesCountedAtWhatTheyHold(t *testing.T) {
	members := func(i, n int, member string) string {
		var m []string
		for j := range n {
			m = append(m, fmt.Sprintf(member, j, i))
		}
		return strings.Join(m, ",")
	}
	tests := []struct {
		name string
		text func(i int) string
	}{
		{"const object", func(i int) string {
			return `{"properties":{"c":{"const":{` + members(i, 1500, `"k%d":[%d,{"z":null}]`) + `}}}}`
		}},
		{"enum of objects", func(i int) string {
			return `{"properties":{"e":{"enum":[` + members(i, 1500, `{"k%d":%d}`) + `]}}}`
		}},
		{"enum of arrays", func(i int) string {
			return `{"properties":{"e":{"enum":[` + members(i, 1500, `[%d,%d,true]`) + `]}}}`
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const n = 40
			texts := make([][]byte, n)
			for i := range n {
				texts[i] = []byte(tt.text(i))
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			g := New(WithCacheBudget(1 << 40))
			for i := range n {
				if _, err := g.Compiled(g.Bind(i, nil, texts[i], nil)); err != nil {
					t.Fatal(err)
				}
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			retained := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			st := g.CacheStats()
			t.Logf("%d schemas: %d bytes counted, %d retained, %.2f", n, st.Held, retained, float64(st.Held)/float64(retained))
			if st.Held < retained || st.Held > 2*retained {
				t.Errorf("counted at %d bytes, %.2f times the %d they hold: want 1 to 2", st.Held, float64(st.Held)/float64(retained), retained)
			}
			runtime.KeepAlive(g)
			runtime.KeepAlive(texts)
		})
	}
}
