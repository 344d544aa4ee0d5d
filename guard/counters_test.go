package guard

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
)

// TestConcurrentCountsSurviveRetiredNames: with more names in use than the guard keeps counters for,
// 8 goroutines call rotating names (a quarter as many calls under the race detector), each call's counters picked up, as an adapter does,
// before the check that counts it; every call is counted, in its name's entry or in the
// retired one, whatever retirement ran in between.
func TestConcurrentCountsSurviveRetiredNames(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	const workers, perWorker, rotating = 8, 40_000 * largest / (1 << 20), 10_000
	g := New()
	s := g.Bind("schema", nil, []byte(`{}`), nil)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range perWorker {
				call := &Call{Tool: "tool-" + strconv.Itoa((w*perWorker+i)%rotating)}
				g.counters(call)
				if g.Check(call, s, []byte(`{}`), nil).Found() {
					t.Error("refused {} against {}")
					return
				}
			}
		})
	}
	wg.Wait()
	var accepted uint64
	for _, st := range g.Stats() {
		accepted += st.Accepted
	}
	if accepted != workers*perWorker {
		t.Errorf("%d accepted calls counted, want %d", accepted, workers*perWorker)
	}
}

// TestToolNamesStayBounded: tools that come and go under fresh names, a thousand more than
// the guard keeps counters for, leave at most maxNames names and the retired entry, which
// sorts first; no call goes uncounted.
func TestToolNamesStayBounded(t *testing.T) {
	g := New()
	s := g.Bind("schema", nil, []byte(`{"type":"object","properties":{"q":{"type":"string"}}}`), nil)
	const churned = maxNames + 1000
	for i := range churned {
		if vd := g.Check(&Call{Tool: fmt.Sprint("tool-", i)}, s, []byte(`{"q":"x"}`), nil); vd.Found() {
			t.Fatalf("valid call refused: %s", vd.Text())
		}
	}
	stats := g.Stats()
	if len(stats) > maxNames+1 {
		t.Errorf("%d tool names tracked after %d came and went", len(stats), churned)
	}
	var accepted uint64
	for _, st := range stats {
		accepted += st.Accepted
	}
	if accepted != churned || stats[0].Tool != "" || stats[0].Accepted == 0 {
		t.Errorf("counters lost in retiring names: %d accepted calls counted of %d; first entry %+v", accepted, churned, stats[0])
	}
	last := fmt.Sprint("tool-", churned-1)
	if i := slices.IndexFunc(stats, func(st ToolStats) bool { return st.Tool == last }); i < 0 || stats[i].Accepted != 1 {
		t.Errorf("the name called last is not kept with its count")
	}
}
