package guard

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// The guard's counters, per tool name: what Stats reports. Counting takes no lock; only a
// new name does, and past maxNames it retires the names called least recently into one
// entry, without losing a count of a call still under way.

// toolState is what the guard keeps per tool name: its counters.
type toolState struct {
	accepted   atomic.Uint64
	refused    atomic.Uint64
	broken     atomic.Uint64
	repaired   atomic.Uint64 // accepted calls whose result was sent, after refusals in the same session
	retries    atomic.Uint64 // the refusals those accepted calls repaired
	unenforced atomic.Uint64 // refused or broken calls whose handler ran, results sent though refused: WithReportOnly
	badResults atomic.Uint64 // results refused by the output schema
	seen       atomic.Uint64 // names.tick when last called
	// retired is set, before its counts are moved, when the name is retired; a count added
	// after the move sees it and is moved too (see Guard.add).
	retired atomic.Bool
}

// names bounds how many tool names have counters of their own. Tools that come and go
// under fresh names would otherwise grow the guard without end: past maxNames, the quarter
// called least recently are retired and their counters added to one entry without a name.
type names struct {
	mu      sync.Mutex // held to add or retire a name, move counts, and take a snapshot
	count   int
	tick    atomic.Uint64 // advanced by every new name
	retired toolState
}

const maxNames = 4096

func (g *Guard) tool(name string) *toolState {
	if v, ok := g.tools.Load(name); ok {
		t := v.(*toolState)
		if tick := g.names.tick.Load(); t.seen.Load() != tick {
			t.seen.Store(tick)
		}
		return t
	}
	g.names.mu.Lock()
	defer g.names.mu.Unlock()
	if v, ok := g.tools.Load(name); ok {
		return v.(*toolState)
	}
	t := &toolState{}
	t.seen.Store(g.names.tick.Add(1))
	g.tools.Store(name, t)
	if g.names.count++; g.names.count > maxNames {
		g.retireNames()
	}
	return t
}

// add adds n to the counter c of t. A call holds its tool's counters from its check to
// its result's, and the name may be retired in between: retireNames marks t before moving
// its counts, so an add the move missed sees the mark (atomic operations are sequentially
// consistent) and moves what it added.
func (g *Guard) add(t *toolState, c *atomic.Uint64, n uint64) {
	c.Add(n)
	if t.retired.Load() {
		g.names.mu.Lock()
		g.names.retired.take(t)
		g.names.mu.Unlock()
	}
}

// retireNames retires the quarter of the names called least recently. The lock is held.
func (g *Guard) retireNames() {
	type aged struct {
		name string
		seen uint64
	}
	var all []aged
	g.tools.Range(func(k, v any) bool {
		all = append(all, aged{k.(string), v.(*toolState).seen.Load()})
		return true
	})
	slices.SortFunc(all, func(a, b aged) int { return cmp.Compare(a.seen, b.seen) })
	for _, a := range all[:len(all)/4] {
		v, _ := g.tools.LoadAndDelete(a.name)
		t := v.(*toolState)
		t.retired.Store(true)
		g.names.retired.take(t)
		g.names.count--
	}
}

// take moves t's counts into r.
func (r *toolState) take(t *toolState) {
	r.accepted.Add(t.accepted.Swap(0))
	r.refused.Add(t.refused.Swap(0))
	r.broken.Add(t.broken.Swap(0))
	r.repaired.Add(t.repaired.Swap(0))
	r.retries.Add(t.retries.Swap(0))
	r.unenforced.Add(t.unenforced.Swap(0))
	r.badResults.Add(t.badResults.Swap(0))
}

// ToolStats are one tool's counters, one for each [Outcome] of its name, and the repairs.
type ToolStats struct {
	Tool         string // the tool's name
	Accepted     uint64 // calls whose arguments were valid
	Refused      uint64 // calls refused for invalid arguments
	SchemaBroken uint64 // calls refused because the schema does not compile
	// Repaired counts the accepted calls that came after refusals of the same tool in the
	// same session, their results sent: a result refused (ResultRefused) repairs nothing.
	Repaired uint64
	Retries  uint64 // the refusals that those accepted calls repaired
	// ResultRefused counts results that do not match the tool's outputSchema
	// (WithOutputValidation); their calls count as Accepted, their arguments being valid.
	ResultRefused uint64
	// Unenforced counts the calls of Refused and SchemaBroken that ran anyway, and the
	// results of ResultRefused sent anyway: all of them under WithReportOnly, none otherwise.
	Unenforced uint64
}

// CallsPerAccepted is the repair ratio: calls made for each accepted call (1 is perfect).
// It is false when no call was accepted, where there is no ratio to give.
func (s ToolStats) CallsPerAccepted() (float64, bool) {
	if s.Accepted == 0 {
		return 0, false
	}
	return float64(s.Accepted+s.Refused+s.SchemaBroken) / float64(s.Accepted), true
}

// RefusalsPerRepair is how many refused attempts, on average, a model needed before the
// accepted call that repaired them (1 means it fixed every refusal in one retry). It is
// false when no call was repaired.
func (s ToolStats) RefusalsPerRepair() (float64, bool) {
	if s.Repaired == 0 {
		return 0, false
	}
	return float64(s.Retries) / float64(s.Repaired), true
}

// Stats returns a snapshot of every tool's counters, sorted by tool name. When more than
// 4,096 tool names have been called, the counters of those called least recently are
// summed in one entry whose Tool is empty, which sorts first.
func (g *Guard) Stats() []ToolStats {
	var out []ToolStats
	g.names.mu.Lock() // no count is on its way between a retired name and the entry
	g.tools.Range(func(k, v any) bool {
		out = append(out, v.(*toolState).stats(k.(string)))
		return true
	})
	r := g.names.retired.stats("")
	g.names.mu.Unlock()
	if r != (ToolStats{}) {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b ToolStats) int { return strings.Compare(a.Tool, b.Tool) })
	return out
}

func (t *toolState) stats(name string) ToolStats {
	return ToolStats{Tool: name, Accepted: t.accepted.Load(), Refused: t.refused.Load(),
		SchemaBroken: t.broken.Load(), Repaired: t.repaired.Load(), Retries: t.retries.Load(),
		ResultRefused: t.badResults.Load(), Unenforced: t.unenforced.Load()}
}
