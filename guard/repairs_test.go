package guard

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// repairCase checks one call of tool in session against a schema that takes only
// integers in "n": a refusal when ok is false, an accepted call otherwise.
func repairCase(g *Guard, s *Schema, session, tool string, ok bool) {
	args := `{"n":"x"}`
	if ok {
		args = `{"n":1}`
	}
	g.Check(&Call{Tool: tool, Session: session}, s, []byte(args), nil)
}

func repairSchema(g *Guard) *Schema {
	return g.Bind("schema", nil, []byte(`{"properties":{"n":{"type":"integer"}}}`), nil)
}

// TestRepairsOfSessions: an accepted call repairs the refusals of its own tool in its own
// session, and no other's.
func TestRepairsOfSessions(t *testing.T) {
	g := New()
	s := repairSchema(g)
	repairCase(g, s, "a", "t", false)
	repairCase(g, s, "a", "t", false)
	repairCase(g, s, "a", "u", false)
	repairCase(g, s, "b", "t", true) // another session: repairs nothing
	repairCase(g, s, "a", "t", true) // repairs a's two refusals of t
	repairCase(g, s, "a", "t", true) // nothing left to repair
	st := g.Stats()
	if len(st) != 2 || st[0].Repaired != 1 || st[0].Retries != 2 || st[1].Repaired != 0 {
		t.Fatalf("stats %+v, want t repaired once after 2 refusals, u not", st)
	}
	if held := g.SessionsAwaitingRepair(); held != 1 {
		t.Errorf("%d sessions held, want 1 (a, with u's refusal)", held)
	}
	g.ForgetSession("a")
	repairCase(g, s, "a", "u", true)
	if st := g.Stats(); st[1].Repaired != 0 {
		t.Errorf("a forgotten session's refusal was repaired: %+v", st[1])
	}
	if held := g.SessionsAwaitingRepair(); held != 0 {
		t.Errorf("%d sessions held after the last ended, want 0", held)
	}
}

// TestRepairsAfterAbandonedSessions: sessions that end with a refusal no call repairs,
// more than the guard remembers and never reported ended, do not stop the counting of
// later sessions' repairs.
func TestRepairsAfterAbandonedSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	g := New()
	s := repairSchema(g)
	for i := range 3 * maxRepairSessions {
		repairCase(g, s, "gone-"+strconv.Itoa(i), "t", false)
	}
	if held := g.repairs.held.Load(); held > maxRepairSessions {
		t.Errorf("%d sessions held, want at most %d", held, maxRepairSessions)
	}
	repairCase(g, s, "live", "t", false)
	repairCase(g, s, "live", "t", true)
	if st := g.Stats()[0]; st.Repaired != 1 || st.Retries != 1 {
		t.Errorf("after abandoned sessions, a repair counted %d times (%d retries), want once (1)", st.Repaired, st.Retries)
	}
}

// TestRepairsConcurrent: sessions on 8 goroutines, each refusing then repairing its own
// tools, while others end: every repair is counted, once.
func TestRepairsConcurrent(t *testing.T) {
	const workers, rounds = 8, 2000
	g := New()
	s := repairSchema(g)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range rounds {
				session := strconv.Itoa(w) + "-" + strconv.Itoa(i%50)
				repairCase(g, s, session, "t", false)
				repairCase(g, s, session, "t", true)
				if i%7 == 0 {
					g.ForgetSession(strconv.Itoa((w+1)%workers) + "-" + strconv.Itoa(i%50))
				}
			}
		})
	}
	wg.Wait()
	st := g.Stats()[0]
	if st.Repaired != st.Retries || st.Repaired > workers*rounds || st.Repaired < workers*rounds*9/10 {
		t.Errorf("%d repairs of %d retries, want equal and near %d", st.Repaired, st.Retries, workers*rounds)
	}
	if held := g.repairs.held.Load(); held < 0 || held > workers*50 {
		t.Errorf("%d sessions held", held)
	}
}

// BenchmarkAcceptedWithRefusalsPending: accepted calls from many sessions on every core,
// while a thousand other sessions have refusals awaiting repair, as on a live server.
func BenchmarkAcceptedWithRefusalsPending(b *testing.B) {
	g := New()
	s := repairSchema(g)
	for i := range 1000 {
		repairCase(g, s, "stuck-"+strconv.Itoa(i), "t", false)
	}
	var next atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		call := Call{Tool: "t", Session: "live-" + strconv.FormatInt(next.Add(1), 10)}
		args := []byte(`{"n":1}`)
		for pb.Next() {
			c := call
			g.Check(&c, s, args, nil)
		}
	})
}

// TestWithheldResultRepairsNothing: an accepted call whose result the guard withholds
// (ResultRefused) repairs nothing, and the refusal before it still awaits the call whose
// result reaches the client.
func TestWithheldResultRepairsNothing(t *testing.T) {
	g := New(WithOutputValidation())
	s := repairSchema(g)
	out, vd := g.ResultValidator(&Call{Tool: "t"}, g.Bind("out", nil, []byte(`{"required":["ok"]}`), nil))
	if vd.Found() {
		t.Fatalf("output schema: %v", vd.Text())
	}
	call := func(args, result string) Verdict {
		c := &Call{Tool: "t", Session: "a", ChecksResult: true}
		if vd := g.Check(c, s, []byte(args), nil); vd.Found() {
			return vd
		}
		return g.CheckResult(c, out, []byte(result))
	}
	call(`{"n":"x"}`, "")
	if vd := call(`{"n":1}`, `{}`); !vd.Refused() {
		t.Fatal("a result without ok was not refused")
	}
	if st := g.Stats()[0]; st.Repaired != 0 || st.Retries != 0 || st.ResultRefused != 1 {
		t.Errorf("after a withheld result: %+v, want nothing repaired", st)
	}
	if held := g.SessionsAwaitingRepair(); held != 1 {
		t.Errorf("%d sessions awaiting repair after a withheld result, want 1", held)
	}
	if vd := call(`{"n":2}`, `{"ok":true}`); vd.Found() {
		t.Fatalf("a valid result refused: %s", vd.Text())
	}
	if st := g.Stats()[0]; st.Repaired != 1 || st.Retries != 1 || st.Accepted != 2 || st.Refused != 1 {
		t.Errorf("after a result sent: %+v, want 1 repair of 1 refusal", st)
	}
	if held := g.SessionsAwaitingRepair(); held != 0 {
		t.Errorf("%d sessions awaiting repair, want 0", held)
	}

	// A result sent unchecked (the handler failed) repairs, as an unchecked call does.
	call(`{"n":"x"}`, "")
	c := &Call{Tool: "t", Session: "a", ChecksResult: true}
	g.Check(c, s, []byte(`{"n":3}`), nil)
	if st := g.Stats()[0]; st.Repaired != 1 {
		t.Errorf("repaired before the result's fate: %+v", st)
	}
	g.Unchecked(c)
	g.Unchecked(c)
	if st := g.Stats()[0]; st.Repaired != 2 || st.Retries != 2 {
		t.Errorf("after a result sent unchecked: %+v, want 2 repairs of 2 refusals", st)
	}
}

// TestRepairEvents: whatever becomes of an accepted call's result, the observers hear of
// the call once as Accepted, with the refusals it repaired as the counters count them: at
// once when its result is not checked, when its result is sent or goes unchecked, and
// none when its result is withheld or its fate never told.
func TestRepairEvents(t *testing.T) {
	out := []byte(`{"type":"object","required":["ok"]}`)
	cases := []struct {
		name       string
		reportOnly bool
		checks     bool
		end        func(g *Guard, c *Call, v *Validator)
		want       []string // outcome and retries of each event after the refusal's
		repaired   uint64
	}{
		{"input only", false, false, func(*Guard, *Call, *Validator) {}, []string{"accepted 1"}, 1},
		{"result sent", false, true, func(g *Guard, c *Call, v *Validator) { g.CheckResult(c, v, []byte(`{"ok":1}`)) }, []string{"accepted 1"}, 1},
		{"result unchecked", false, true, func(g *Guard, c *Call, _ *Validator) { g.Unchecked(c) }, []string{"accepted 1"}, 1},
		{"result withheld", false, true, func(g *Guard, c *Call, v *Validator) { g.CheckResult(c, v, []byte(`{}`)) }, []string{"accepted 0", "result refused 0"}, 0},
		{"result never told", false, true, func(g *Guard, c *Call, _ *Validator) { g.Ended(c, true) }, []string{"accepted 0"}, 0},
		{"report-only result refused", true, true, func(g *Guard, c *Call, v *Validator) { g.CheckResult(c, v, []byte(`{}`)) }, []string{"accepted 0", "result refused 0"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			opts := []Option{WithObserver(func(e Event) { got = append(got, e.Outcome.String()+" "+strconv.Itoa(e.Retries)) })}
			if tc.reportOnly {
				opts = append(opts, WithReportOnly())
			}
			g := New(opts...)
			s := repairSchema(g)
			repairCase(g, s, "a", "t", false)
			got = got[1:]
			c := &Call{Tool: "t", Session: "a", ChecksResult: tc.checks}
			if vd := g.Check(c, s, []byte(`{"n":1}`), nil); vd.Found() {
				t.Fatal(vd.Text())
			}
			v, vd := g.ResultValidator(c, g.Bind("out", nil, out, nil))
			if vd.Found() {
				t.Fatal(vd.Text())
			}
			tc.end(g, c, v)
			g.Ended(c, false) // tells nothing more
			if strings.Join(got, ", ") != strings.Join(tc.want, ", ") {
				t.Errorf("events %q, want %q", got, tc.want)
			}
			if st := g.Stats()[0]; st.Repaired != tc.repaired || st.Retries != tc.repaired {
				t.Errorf("stats %+v, want %d repaired", st, tc.repaired)
			}
		})
	}
}
