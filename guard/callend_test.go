package guard

import (
	"context"
	"testing"
)

type ctxKey struct{}

// TestObserversHearContextRetriesAndEnd: the event carries the call's context, protocol
// version and the refusals an accepted call repairs; WithCallEnd hears each call's end
// once, with its context and whether its result is an error.
func TestObserversHearContextRetriesAndEnd(t *testing.T) {
	var events []Event
	var ends []CallEnd
	g := New(WithObserver(func(e Event) { events = append(events, e) }), WithCallEnd(func(e CallEnd) { ends = append(ends, e) }))
	ctx := context.WithValue(context.Background(), ctxKey{}, "mine")
	run := func(args string) {
		call := Call{Tool: "weather", Session: "s1", Context: ctx, ProtocolVersion: "2025-06-18"}
		s := g.Lookup("weather")
		if s == nil {
			s = g.Bind("weather", nil, []byte(weatherSchema), nil)
		}
		vd := g.Check(&call, s, []byte(args), nil)
		g.Ended(&call, vd.Refused())
	}
	run(`{"days":1}`)
	run(`{"location":"x","units":"k"}`)
	run(`{"location":"Paris"}`)
	if len(events) != 3 || len(ends) != 3 {
		t.Fatalf("%d events, %d ends; want 3 and 3", len(events), len(ends))
	}
	for i, e := range events {
		if e.Context.Value(ctxKey{}) != "mine" || e.ProtocolVersion != "2025-06-18" {
			t.Errorf("event %d: context %v, protocol version %q", i, e.Context, e.ProtocolVersion)
		}
	}
	if events[0].Retries != 0 || events[2].Outcome != Accepted || events[2].Retries != 2 {
		t.Errorf("retries: %d, then %v with %d; want 0, then accepted with 2", events[0].Retries, events[2].Outcome, events[2].Retries)
	}
	for i, want := range []bool{true, true, false} {
		if e := ends[i]; e.IsError != want || e.Tool != "weather" || e.Context != ctx || e.Duration < 0 {
			t.Errorf("end %d: %+v; want IsError %v", i, e, want)
		}
	}
	if st := g.CacheStats(); st.Misses != 1 || st.Hits != 2 || st.Evicted != 0 {
		t.Errorf("cache: %+v; want 1 miss, 2 hits, none evicted", st)
	}
}

// TestEndedWithoutObserversIsQuiet: a call never checked, or a guard without call-end
// observers, reports nothing.
func TestEndedWithoutObserversIsQuiet(t *testing.T) {
	n := 0
	g := New(WithCallEnd(func(CallEnd) { n++ }))
	g.Ended(&Call{Tool: "t"}, false)
	if n != 0 {
		t.Errorf("an unchecked call's end was reported %d times", n)
	}
}

// TestCacheCountsEvictions: under a budget that holds one schema, calls alternating
// between two tools miss, bind and evict every time.
func TestCacheCountsEvictions(t *testing.T) {
	g := New(WithCacheBudget(1))
	for range 5 {
		for _, tool := range []string{"a", "b"} {
			if g.Lookup(tool) == nil {
				g.Bind(tool, nil, []byte(`{"title":"`+tool+`"}`), nil)
			}
		}
	}
	if st := g.CacheStats(); st.Hits != 0 || st.Misses != 10 || st.Evicted != 9 || st.Bindings != 1 {
		t.Errorf("cache: %+v; want 10 misses, 9 evictions, 1 binding held", st)
	}
}
