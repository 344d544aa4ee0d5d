package core

import (
	"strconv"
	"sync"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/internal/tier"
)

// TestConcurrentCountsSurviveRetiredNames: with more names in use than the guard keeps counters for,
// 8 goroutines call rotating names (a quarter as many calls under the race detector), each call's counters picked up, as an adapter does,
// before the check that counts it; every call is counted, in its name's entry or in the
// retired one, whatever retirement ran in between.
func TestConcurrentCountsSurviveRetiredNames(t *testing.T) {
	tier.Full(t)
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
