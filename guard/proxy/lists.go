package proxy

import (
	"hash/maphash"
	"runtime"
	"sync"
	"sync/atomic"
	"unique"
	"weak"
)

// This file is what the proxy keeps of the servers' tool lists: each list once, however
// many sessions got the same, each schema text once, however many lists hold it, and all
// of it within Options.CacheBudget. A list lives while a session holds it: it leaves the
// store when the last session that took it takes another, or when the sessions that hold
// it are gone (collected). Past the budget the lists used least recently are dropped from
// under their sessions, whose next call fetches the list again.

// A toolList is one tool list as sessions hold it; it never changes, but it may be
// dropped.
type toolList struct {
	tools    atomic.Pointer[map[string]*tool] // nil once dropped
	complete bool                             // every page of a listing
	used     atomic.Bool                      // read since the clock hand last passed
	entry    *listEntry
	takers   int // sessions that took it and took no other since; under the store's lock
}

// get returns the list's tools and whether they are the whole list; nil when l is nil or
// was dropped.
func (l *toolList) get() (map[string]*tool, bool) {
	if l == nil {
		return nil, false
	}
	m := l.tools.Load()
	if m == nil {
		return nil, false
	}
	if !l.used.Load() {
		l.used.Store(true)
	}
	return *m, l.complete
}

// A listEntry is a list in the store, held weakly: the sessions keep it alive.
type listEntry struct {
	list weak.Pointer[toolList]
	hash uint64
	cost int64
	at   int  // in the ring
	gone bool // dropped or collected
}

// lists interns tool lists by content and keeps them within a budget, evicting with a
// clock as the guard's schema cache does.
type lists struct {
	seed maphash.Seed

	mu     sync.Mutex
	byHash map[uint64][]*listEntry
	ring   []*listEntry
	hand   int
	held   int64
	budget int64
}

func newLists(budget int64) *lists {
	return &lists{seed: maphash.MakeSeed(), byHash: map[uint64][]*listEntry{}, budget: budget}
}

// A toolKey is what makes two tools the same: their name and schemas' texts.
type toolKey struct {
	name    string
	in, out unique.Handle[string]
}

func (t *tool) key(name string) toolKey {
	k := toolKey{name: name, in: t.in.key}
	if t.out != nil {
		k.out = t.out.key
	}
	return k
}

// same reports whether t and u have the same schemas.
func (t *tool) same(u *tool) bool { return t.key("") == u.key("") }

// take returns the list of tools for a session to hold in place of old (nil: none): the
// one a session holds already when one holds the same.
func (ls *lists) take(tools map[string]*tool, complete bool, old *toolList) *toolList {
	var h uint64
	for name, t := range tools {
		h += maphash.Comparable(ls.seed, t.key(name))
	}
	if complete {
		h = ^h
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for _, e := range ls.byHash[h] {
		if l := e.list.Value(); l != nil && l.complete == complete {
			if m := l.tools.Load(); m != nil && sameTools(*m, tools) {
				l.used.Store(true)
				l.takers++
				ls.release(old)
				return l
			}
		}
	}
	ls.release(old) // before the new list is counted, lest the two crowd out others
	l := &toolList{complete: complete, takers: 1}
	l.tools.Store(&tools)
	l.used.Store(true)
	e := &listEntry{list: weak.Make(l), hash: h, cost: listCost(tools), at: len(ls.ring)}
	l.entry = e
	ls.byHash[h] = append(ls.byHash[h], e)
	ls.ring = append(ls.ring, e)
	ls.held += e.cost
	runtime.AddCleanup(l, ls.collected, e)
	ls.shed(e)
	return l
}

func sameTools(a, b map[string]*tool) bool {
	if len(a) != len(b) {
		return false
	}
	for name, t := range b {
		if u := a[name]; u == nil || !u.same(t) {
			return false
		}
	}
	return true
}

// listCost is what a list holds, in bytes: each tool's entry, name and schema texts (a
// text that lists share is counted in each).
func listCost(tools map[string]*tool) int64 {
	cost := int64(128)
	for name, t := range tools {
		cost += 96 + int64(len(name)+len(t.in.key.Value()))
		if t.out != nil {
			cost += 48 + int64(len(t.out.key.Value()))
		}
	}
	return cost
}

// shed drops lists, those unused since the hand last passed first, until the store is
// within its budget; spare is never dropped, so a list larger than the budget still
// serves its session.
func (ls *lists) shed(spare *listEntry) {
	for passed := 0; ls.held > ls.budget && passed < 2*len(ls.ring); {
		if ls.hand >= len(ls.ring) {
			ls.hand = 0
		}
		e := ls.ring[ls.hand]
		l := e.list.Value()
		if e == spare || l != nil && l.used.Load() {
			if l != nil {
				l.used.Store(false)
			}
			ls.hand++
			passed++
			continue
		}
		if l != nil {
			l.tools.Store(nil)
		}
		ls.remove(e)
		passed = 0
	}
}

// release removes l from the store when no session that took it holds it any more;
// ls.mu is held.
func (ls *lists) release(l *toolList) {
	if l == nil {
		return
	}
	if l.takers--; l.takers == 0 {
		ls.remove(l.entry)
	}
}

// collected removes the entry of a list no session holds any more.
func (ls *lists) collected(e *listEntry) {
	ls.mu.Lock()
	ls.remove(e)
	ls.mu.Unlock()
}

// remove takes e out of the store; ls.mu is held. The ring's last entry takes its place.
func (ls *lists) remove(e *listEntry) {
	if e.gone {
		return
	}
	e.gone = true
	ls.held -= e.cost
	same := ls.byHash[e.hash]
	for i, o := range same {
		if o == e {
			same[i] = same[len(same)-1]
			same = same[:len(same)-1]
			break
		}
	}
	if len(same) == 0 {
		delete(ls.byHash, e.hash)
	} else {
		ls.byHash[e.hash] = same
	}
	last := len(ls.ring) - 1
	ls.ring[e.at] = ls.ring[last]
	ls.ring[e.at].at = e.at
	ls.ring[last] = nil
	ls.ring = ls.ring[:last]
}

// size and bytes say how many lists the store holds, and their cost.
func (ls *lists) size() int {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return len(ls.ring)
}

func (ls *lists) bytes() int64 {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.held
}
