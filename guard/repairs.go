package guard

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// The repair count: an accepted call whose result goes to the client repairs the refusals
// of the same tool in the same session that came before it; a result the guard withholds
// (ResultRefused) repairs nothing, and the refusals stay pending. Each session's refusals are kept apart, so that an accepted
// call takes no lock another session's calls take; a session's are forgotten when it ends
// (ForgetSession), and, whatever the adapters report, the sessions held stay within
// maxRepairSessions, the oldest forgotten first, so that counting never stops.

// repairs holds, per session, the refusals not yet followed by an accepted call.
type repairs struct {
	sessions sync.Map     // session ID -> *sessionRepairs
	held     atomic.Int64 // sessions in the map, or for a moment more
	sweep    sync.Mutex   // held while forgetting the oldest sessions
}

// sessionRepairs are one session's refusals not yet repaired, per tool.
type sessionRepairs struct {
	mu      sync.Mutex
	pending map[string]int // tool -> refusals
	last    int64          // when the latest refusal came, in Unix nanoseconds
	gone    bool           // forgotten: a refusal must find or make the session's new entry
}

const (
	// maxRepairSessions bounds the sessions whose refusals are remembered: about 200
	// bytes each, with a refused tool or two.
	maxRepairSessions = 10000
	// maxRepairTools bounds one session's refused tools awaiting repair.
	maxRepairTools = 256
)

func (r *repairs) refuse(call *Call) {
	now := time.Now().UnixNano()
	for {
		s := r.session(call.Session)
		s.mu.Lock()
		if s.gone { // forgotten or emptied as we found it: its entry is on its way out
			s.mu.Unlock()
			if r.sessions.CompareAndDelete(call.Session, s) {
				r.held.Add(-1)
			}
			continue
		}
		if _, ok := s.pending[call.Tool]; ok || len(s.pending) < maxRepairTools {
			s.pending[call.Tool]++
		}
		s.last = now
		s.mu.Unlock()
		return
	}
}

// session returns the entry of the session id, made if there is none.
func (r *repairs) session(id string) *sessionRepairs {
	if v, ok := r.sessions.Load(id); ok {
		return v.(*sessionRepairs)
	}
	if r.held.Load() >= maxRepairSessions {
		r.forgetOldest()
	}
	r.held.Add(1) // before the entry is stored, so that held is never below the map's size
	v, loaded := r.sessions.LoadOrStore(id, &sessionRepairs{pending: map[string]int{}})
	if loaded {
		r.held.Add(-1)
	}
	return v.(*sessionRepairs)
}

// accept returns how many refusals this accepted call repaired.
func (r *repairs) accept(call *Call) int {
	if r.held.Load() == 0 {
		return 0
	}
	v, ok := r.sessions.Load(call.Session)
	if !ok {
		return 0
	}
	s := v.(*sessionRepairs)
	s.mu.Lock()
	n := s.pending[call.Tool]
	delete(s.pending, call.Tool)
	empty := len(s.pending) == 0 && !s.gone
	if empty {
		s.gone = true // the session has nothing left to repair: its entry goes
	}
	s.mu.Unlock()
	if empty && r.sessions.CompareAndDelete(call.Session, s) {
		r.held.Add(-1)
	}
	return n
}

// repaired counts the repair of the refusals before call, and returns how many it
// repaired.
func (g *Guard) repaired(call *Call, t *toolState) int {
	n := g.repairs.accept(call)
	if n > 0 {
		g.add(t, &t.repaired, 1)
		g.add(t, &t.retries, uint64(n))
	}
	return n
}

// Unchecked tells the guard that the result of an accepted call whose result it was to
// check ([Call.ChecksResult]) goes to the client unchecked: the handler failed, or asks
// for input. The call then repairs the refusals before it, as a call whose result is not
// checked does at once.
func (g *Guard) Unchecked(call *Call) { g.sent(call, 0) }

// sent counts the repair of an accepted call whose result was to be checked, now that
// the result goes to the client, and tells the observers of the call, its result's check
// having taken checked.
func (g *Guard) sent(call *Call, checked time.Duration) {
	if !call.repairing {
		return
	}
	call.repairing = false
	n := g.repaired(call, g.counters(call))
	if call.held {
		g.release(call, n, checked)
	}
}

// forget drops the session id's refusals.
func (r *repairs) forget(id string) {
	v, ok := r.sessions.LoadAndDelete(id)
	if !ok {
		return
	}
	s := v.(*sessionRepairs)
	s.mu.Lock()
	s.gone = true
	s.mu.Unlock()
	r.held.Add(-1)
}

// forgetOldest forgets the quarter of the sessions whose latest refusal is oldest.
func (r *repairs) forgetOldest() {
	r.sweep.Lock()
	defer r.sweep.Unlock()
	if r.held.Load() < maxRepairSessions {
		return // another caller swept meanwhile
	}
	type aged struct {
		id   string
		last int64
	}
	var all []aged
	r.sessions.Range(func(k, v any) bool {
		s := v.(*sessionRepairs)
		s.mu.Lock()
		all = append(all, aged{k.(string), s.last})
		s.mu.Unlock()
		return true
	})
	slices.SortFunc(all, func(a, b aged) int { return cmp.Compare(a.last, b.last) })
	for _, a := range all[:len(all)/4] {
		r.forget(a.id)
	}
}

// ForgetSession forgets the refusals of the session id that no accepted call has repaired
// yet: the session has ended, so none will. Adapters call it when their framework reports
// a session's end; without it, the guard forgets the oldest sessions' refusals once it
// holds those of 10,000 sessions.
func (g *Guard) ForgetSession(id string) { g.repairs.forget(id) }

// SessionsAwaitingRepair reports how many sessions have refusals that no accepted call
// has repaired yet, at most 10,000: a gauge of models stuck on a tool, and of sessions
// whose end the adapter did not report.
func (g *Guard) SessionsAwaitingRepair() int { return int(max(g.repairs.held.Load(), 0)) }
