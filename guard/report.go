package guard

import (
	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
	"slices"
	"strings"
)

// The failure side of a validation: the violations one call records, with their paths.
//
// A value may be checked more than once (applicators.go), and each check is in one mode:
//
//   - recording (quiet == 0, counting == 0): every violation is recorded with its path,
//     up to the limit, and those past it are counted; a violation found again by another
//     pass over the same value is recorded once;
//   - quiet (quiet > 0): only a verdict is needed, inside anyOf, oneOf, not, if and
//     contains; violations are counted, none recorded, and a check may stop at its first
//     failure;
//   - counting (counting > 0): every violation is counted and none recorded, to learn how
//     close an alternative comes (explain), gathering the types its type violations ask for.
//
// A syntax error or a value nested too deep aborts the call: it becomes the one violation,
// and nothing more is checked or recorded.

// A report is the violations of one call so far and the path to the value being checked.
// state embeds it; the violations and paths it hands over are the caller's to keep.
type report struct {
	out      []Violation
	count    int  // violations found, including those beyond the limit
	limit    int  // of violations listed
	quiet    int  // > 0: only a verdict is needed
	counting int  // > 0: violations are counted to compare alternatives
	abort    bool // a syntax error or too deep: nothing more is checked
	types    typeCollector
	path     []seg
	args     []byte // the arguments the path's member names point into
	text     []byte // scratch for decoding a member name
	// duplicate member names before this offset are recorded already (see duplicated)
	recordedDup int
	moved       []Violation // scratch for reordering
	order       []int       // scratch: the member each violation of an object is about
	// The paths and names of one call's violations are carved from shared blocks, made
	// anew for each call since the violations keep them. A member's name is copied once
	// per call, however many violations lie below it.
	slab     []PathElem
	names    strings.Builder
	segNames []segName // by level of the path: where the names were copied to
}

func (r *report) reset(args []byte, limit int) {
	r.out, r.count, r.limit, r.quiet, r.counting, r.abort = r.out[:0], 0, limit, 0, 0, false
	r.types = typeCollector{level: -1}
	clear(r.segNames) // they hold the last call's names
	r.path, r.order, r.segNames = r.path[:0], r.order[:0], r.segNames[:0]
	r.args, r.recordedDup = args, 0
	r.slab = nil
	r.names.Reset()
}

func (r *report) oversized(most int) bool {
	return cap(r.out) > most || cap(r.path) > most || cap(r.text) > most || cap(r.order) > most || cap(r.segNames) > most
}

// seg is one step of the current path: a member name token or an array index. It holds
// no pointer, so keeping the path costs no write barrier.
type seg struct {
	name  jsontext.String
	index int // -1 for a member
}

// segName is the copy in r.names of the long member name at one level of the path, whose
// token starts at start in the arguments; every violation below it shares that copy.
type segName struct {
	start int
	name  string
}

// record records v at the current path, followed by the member name if isMember; again
// says that some value has been checked more than once, so v may be recorded already.
func (r *report) record(v *Violation, name string, isMember, again bool) {
	if r.abort {
		return // the syntax or depth violation is the whole answer
	}
	r.count++
	switch {
	case r.quiet > 0:
	case r.counting > 0:
		if v.Kind == KindType && len(r.path) == r.types.level {
			r.types.names = appendNew(r.types.names, v.Types...)
		}
	case !r.listing():
	case again && r.listed(v, name, isMember):
		r.count-- // found again by another pass over the value
	default:
		if r.out == nil {
			r.out = make([]Violation, 0, 4) // the answer itself, unless it is truncated
		}
		r.out = append(r.out, *v)
		r.out[len(r.out)-1].Path = r.currentPath(name, isMember)
	}
}

// listing reports whether a violation recorded now is listed, not only counted: the
// list holds one past the limit, so that result knows to truncate it.
func (r *report) listing() bool {
	return len(r.out) <= r.limit
}

// miss counts a violation under quiet, where record would list nothing, without building it.
func (r *report) miss() {
	if !r.abort {
		r.count++
	}
}

// stop makes v the whole answer: a syntax error or a value too deep.
func (r *report) stop(v Violation) {
	if r.abort {
		return
	}
	r.abort = true
	r.out = append(r.out[:0], v)
	r.count = 1
}

// result returns the violations, applying the limit.
func (r *report) result() []Violation {
	if len(r.out) == 0 {
		return nil
	}
	if r.count <= min(len(r.out), r.limit) {
		out := r.out // handed over whole: the next call starts a list of its own
		r.out = nil
		return out
	}
	return truncated(r.out, r.count, r.limit)
}

// truncated lists the first limit of the violations vs, found among count, and one of
// KindTruncated for the rest.
func truncated(vs []Violation, count, limit int) []Violation {
	n := min(len(vs), limit)
	out := make([]Violation, n, n+1)
	copy(out, vs)
	return append(out, Violation{Kind: KindTruncated, Count: count - n})
}

// moveBack moves the violations recorded from tail on to mark, before those recorded since.
func (r *report) moveBack(mark, tail int) {
	r.moved = append(r.moved[:0], r.out[tail:]...)
	r.out = slices.Insert(r.out[:tail], mark, r.moved...)
	clear(r.moved)
}

// currentPath renders the path stack, followed by a member name if isMember.
func (r *report) currentPath(name string, isMember bool) Path {
	n := len(r.path)
	if isMember {
		n++
	}
	if n == 0 {
		return nil
	}
	if cap(r.slab)-len(r.slab) < n {
		r.slab = make([]PathElem, 0, max(n, 2*cap(r.slab), 4))
	}
	p := r.slab[len(r.slab) : len(r.slab)+n : len(r.slab)+n]
	r.slab = r.slab[:len(r.slab)+n]
	for i, e := range r.path {
		if e.index < 0 {
			p[i] = PathElem{Name: r.segName(i)}
		} else {
			p[i] = PathElem{Index: e.index, IsIndex: true}
		}
	}
	if isMember {
		p[n-1] = PathElem{Name: name}
	}
	return p
}

// segName returns the member name at level i of the path. A long name is copied only the
// first time, however many violations lie below it; a short one costs less to copy again
// than to look up.
func (r *report) segName(i int) string {
	tok := r.path[i].name
	long := tok.End-tok.Start >= 64
	if long && i < len(r.segNames) && r.segNames[i].start == tok.Start {
		return r.segNames[i].name
	}
	if r.names.Cap() == 0 {
		r.names.Grow(16)
	}
	from := r.names.Len()
	r.names.Write(tok.Text(r.args, &r.text))
	name := r.names.String()[from:]
	if long {
		for len(r.segNames) <= i {
			r.segNames = append(r.segNames, segName{start: -1})
		}
		r.segNames[i] = segName{tok.Start, name}
	}
	return name
}

// segIs reports whether the member name at level i of the path is name, copying nothing.
func (r *report) segIs(i int, name string) bool {
	tok := r.path[i].name
	if i < len(r.segNames) && r.segNames[i].start == tok.Start {
		return r.segNames[i].name == name
	}
	return string(tok.Text(r.args, &r.text)) == name
}

// listed reports whether the violation v, at the current path (followed by name if
// isMember), is listed already.
func (r *report) listed(v *Violation, name string, isMember bool) bool {
	for i := range r.out {
		o := &r.out[i]
		if o.Kind == v.Kind && o.Keyword == v.Keyword && o.Limit == v.Limit && o.Name == v.Name &&
			o.Count == v.Count && o.Detail == v.Detail && slices.Equal(o.Types, v.Types) &&
			slices.Equal(o.Values, v.Values) && slices.Equal(o.Indexes, v.Indexes) && r.atPath(o.Path, name, isMember) {
			return true
		}
	}
	return false
}

// atPath reports whether p is the current path, followed by name if isMember. Paths that
// differ mostly differ at the end, where it starts.
func (r *report) atPath(p Path, name string, isMember bool) bool {
	if isMember {
		if len(p) != len(r.path)+1 || p[len(p)-1].Name != name || p[len(p)-1].IsIndex {
			return false
		}
		p = p[:len(p)-1]
	}
	if len(p) != len(r.path) {
		return false
	}
	for i := len(p) - 1; i >= 0; i-- {
		e := r.path[i]
		if e.index >= 0 && (!p[i].IsIndex || p[i].Index != e.index) || e.index < 0 && (p[i].IsIndex || !r.segIs(i, p[i].Name)) {
			return false
		}
	}
	return true
}
