package guard

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// This file is the guard's room: the compiled schemas a guard keeps. A schema is
// compiled once per distinct text, however many tools and sessions declare it, and what
// the cache holds stays within a memory budget.
//
// A call finds its compilation through the identity of the values its tool's schema is
// built from (a key the adapter makes): no schema is read and no lock taken. Only an identity not seen
// before has its schema's text made and looked up, and only a text not seen before is
// compiled.

// A Schema is one schema text in a guard's cache, compiled on first use and shared by
// every binding to that text ([Guard.Bind]).
type Schema struct {
	text string // the cache's key; "\x00" and an error for a schema that has no text
	once sync.Once
	v    *Validator
	err  error
	cost int64
	refs int      // bindings to it; it is dropped with the last
	last *binding // the newest binding to it, spared when it is charged what it holds
}

// A Kept value is what an adapter keeps with a binding ([Guard.Bind]) to tell, when it
// finds the binding again ([Guard.Find]), whether the schema's values still hold the text
// bound. Held is the bytes it holds, counted within the cache's budget.
type Kept interface{ Held() int64 }

// binding ties a schema's identity to its compilation, with what the adapter keeps of it.
type binding struct {
	key  any
	c    *Schema
	keep Kept
	cost int64
	at   int         // its index in the ring
	used atomic.Bool // looked up since the clock hand last passed
}

// schemaCache evicts with a clock: the hand passes over bindings in the order they were
// made, spares those used since it last passed, and evicts the others one at a time until
// the cache is back within its budget. A full cache sheds its coldest entries; it never
// starts over.
type schemaCache struct {
	byKey    sync.Map // key -> *binding, read without the lock
	build    func([]byte) (*Validator, error)
	compiled atomic.Int64
	hits     atomic.Int64 // lookups that found a binding
	misses   atomic.Int64 // lookups that found none
	evicted  atomic.Int64 // bindings evicted to stay within the budget

	mu     sync.Mutex
	byText map[string]*Schema
	ring   []*binding
	hand   int
	held   int64
	budget int64
}

// DefaultCacheBudget is the memory, in bytes, that one guard's compiled schemas may hold
// unless WithCacheBudget says otherwise.
const DefaultCacheBudget = 64 << 20

// Bytes held. Until a schema is compiled, its compilation is estimated at about 24 times
// its text, what most schemas compile to; once compiled, it is charged what the compiler
// counted (Validator.held), and a schema that fails to compile only its text and error.
// Either keeps the text as its key; a binding, what its adapter keeps.
func compiledCost(text string) int64 { return 2048 + 24*int64(len(text)) }

func bindingCost(keep Kept) int64 {
	const own = int64(unsafe.Sizeof(binding{})) + 256 // and its key, and its entries in the ring and the key map
	if keep == nil {
		return own
	}
	return own + keep.Held()
}

// compiledHeld is what c holds once compiled.
func compiledHeld(c *Schema) int64 {
	held := 512 + int64(len(c.text))
	if c.err != nil {
		return held + int64(len(c.err.Error()))
	}
	return held + int64(unsafe.Sizeof(Validator{})) + c.v.held
}

func newSchemaCache(budget int64, build func([]byte) (*Validator, error)) *schemaCache {
	return &schemaCache{byText: map[string]*Schema{}, budget: budget, build: build}
}

// lookup returns the binding of key, or nil.
func (sc *schemaCache) lookup(key any) *binding {
	v, ok := sc.byKey.Load(key)
	if !ok {
		sc.misses.Add(1)
		return nil
	}
	sc.hits.Add(1)
	b := v.(*binding)
	if !b.used.Load() {
		b.used.Store(true)
	}
	return b
}

// bind binds key to the compilation of text, and to keep, in place of what key was bound
// to unless that is the same text and keep. A schema whose text could not be made is bound
// to a compilation that fails with err.
func (sc *schemaCache) bind(key any, keep Kept, text []byte, err error) *Schema {
	s := string(text)
	if err != nil {
		s = "\x00" + err.Error()
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	v, bound := sc.byKey.Load(key)
	if bound && v.(*binding).c.text == s && v.(*binding).keep == keep {
		return v.(*binding).c
	}
	c := sc.byText[s]
	if c == nil {
		c = &Schema{text: s, err: err, cost: compiledCost(s)}
		sc.byText[s] = c
		sc.held += c.cost
	}
	c.refs++
	if bound {
		sc.drop(v.(*binding))
	}
	b := &binding{key: key, c: c, keep: keep, cost: bindingCost(keep), at: len(sc.ring)}
	b.used.Store(true)
	c.last = b
	sc.ring = append(sc.ring, b)
	sc.held += b.cost
	sc.byKey.Store(key, b)
	sc.shed(b)
	return c
}

// validator compiles c on first use, outside the cache's lock, so that a large schema
// being compiled holds up no other tool's calls; then charges what it holds, in place of
// the estimate. A schema that fails stays in the cache with its error, at the cost of its
// text, so that it is not compiled again on each call.
func (sc *schemaCache) validator(c *Schema) (*Validator, error) {
	c.once.Do(func() {
		if c.err == nil {
			sc.compiled.Add(1)
			c.v, c.err = sc.build([]byte(c.text))
		}
		sc.charge(c, compiledHeld(c))
	})
	return c.v, c.err
}

// charge sets what the compilation c is charged, unless it was evicted meanwhile, and
// sheds what the cache then holds beyond its budget.
func (sc *schemaCache) charge(c *Schema, cost int64) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.byText[c.text] != c {
		return
	}
	sc.held += cost - c.cost
	c.cost = cost
	sc.shed(c.last)
}

// shed evicts bindings, coldest first, until the cache is within its budget; spare, the
// binding just made or charged, is not, so a schema larger than the whole budget still
// serves its calls. Two rounds of the hand that evict nothing leave only it. Other bindings
// to spare's text are evicted as any other: each binds a key of its own.
func (sc *schemaCache) shed(spare *binding) {
	for passed := 0; sc.held > sc.budget && passed < 2*len(sc.ring); {
		if sc.hand >= len(sc.ring) {
			sc.hand = 0
		}
		b := sc.ring[sc.hand]
		if b == spare || b.used.Load() {
			b.used.Store(false)
			sc.hand++
			passed++
			continue
		}
		sc.evicted.Add(1)
		sc.byKey.Delete(b.key)
		sc.drop(b)
		passed = 0
	}
}

// drop removes b from the ring, and its compilation with the last binding to it. The last
// binding of the ring takes b's place, to be looked at next.
func (sc *schemaCache) drop(b *binding) {
	last := len(sc.ring) - 1
	sc.ring[b.at] = sc.ring[last]
	sc.ring[b.at].at = b.at
	sc.ring[last] = nil
	sc.ring = sc.ring[:last]
	sc.held -= b.cost
	if b.c.last == b {
		b.c.last = nil
	}
	if b.c.refs--; b.c.refs == 0 {
		delete(sc.byText, b.c.text)
		sc.held -= b.c.cost
	}
}

// size reports how many compilations and bindings the cache holds, and their estimated bytes.
func (sc *schemaCache) size() (compilations, bindings int, held int64) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return len(sc.byText), len(sc.ring), sc.held
}

// CacheStats say what a guard's schema cache holds.
type CacheStats struct {
	Texts    int   // distinct schema texts, each compiled at most once
	Compiled int64 // compilations run since the guard was made, evicted ones included
	Bindings int   // schema identities bound to a text (see Guard.Bind)
	Held     int64 // bytes the cache holds by its count, within WithCacheBudget
	Hits     int64 // lookups of a schema's identity that found its compilation
	Misses   int64 // lookups that did not, each followed by a Bind
	Evicted  int64 // bindings evicted to keep within WithCacheBudget
}

// CacheStats returns what the guard's schema cache holds now.
func (g *Guard) CacheStats() CacheStats {
	texts, bindings, held := g.schemas.size()
	sc := g.schemas
	return CacheStats{Texts: texts, Compiled: sc.compiled.Load(), Bindings: bindings, Held: held,
		Hits: sc.hits.Load(), Misses: sc.misses.Load(), Evicted: sc.evicted.Load()}
}
