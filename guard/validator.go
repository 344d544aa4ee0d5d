package guard

// The entry points: Compile, Validator and the choice between the quick and the
// explaining pass.

import (
	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
	"regexp/syntax"
	"strconv"
	"sync"
	"sync/atomic"
)

// A Validator checks tool arguments against one compiled inputSchema. It is immutable and
// safe for concurrent use.
type Validator struct {
	root   *node
	values canonTable // the ids of const and enum values
	// objectRoot: only the root's own keywords apply to arguments that are an object, and
	// they allow one, so such arguments go straight to the object scanner.
	objectRoot  bool
	quickObject bool // objectRoot, and the quick pass takes the root
	cfg         config
	full        func(args []byte, limit int) []Violation // the full engine's check, under WithFullEngine
	held        int64                                    // bytes the compiled schema holds, counted as it was compiled
	// The explaining pass allocates nothing on a valid call either: the state of a finished
	// call is kept for the next, one at hand for the common case of one call at a time, the
	// others in a pool. The quick pass needs no state.
	spare atomic.Pointer[state]
	pool  sync.Pool
}

// Compile compiles a tool's inputSchema (JSON Schema 2020-12; 2019-09, draft-07, draft-06
// and draft-04 when $schema names them). Errors are *SchemaError values naming the place.
func Compile(schema []byte, opts ...CompileOption) (*Validator, error) {
	return compileWith(schema, compileConfig(opts))
}

func compileWith(schema []byte, cfg config) (*Validator, error) {
	tree, err := parseSchema(schema)
	if err != nil {
		return nil, &SchemaError{Location: "#", Reason: "not valid JSON: " + err.Error()}
	}
	if cfg.fullEngine != nil {
		full, err := cfg.fullEngine(schema, tree, cfg)
		if err != nil {
			return nil, err
		}
		return &Validator{cfg: cfg, full: full, held: fullHeld(schema, tree)}, nil
	}
	d := draft2020
	if o, ok := tree.(*schemaObject); ok {
		if s, ok := o.get("$schema"); ok {
			uri, _ := s.(string)
			dd, known := dialectOf(uri)
			if !known {
				return nil, &SchemaError{Location: "#/$schema", Reason: "unknown dialect " + strconv.Quote(uri) + ": use JSON Schema 2020-12, 2019-09, draft-07, draft-06 or draft-04"}
			}
			d = dd
		}
	}
	root, held, values, err := compileSubset(tree, cfg, d)
	if err != nil {
		return nil, err
	}
	v := &Validator{root: root, values: values, cfg: cfg, held: held + values.size()}
	v.objectRoot = !root.applicators && !root.reject && root.enum == nil && root.constant == nil &&
		(root.types == 0 || root.types&tObject != 0)
	v.quickObject = v.objectRoot && root.quick
	return v, nil
}

// fullHeld returns about the bytes the full engine holds for the schema text, parsed as
// tree: 40 a byte of text (measured: 32 to 37 on flat and nested schemas), and the
// programs of the patterns it compiles with Go's regexp.
func fullHeld(text []byte, tree any) int64 {
	held := 40 * int64(len(text))
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				walk(e)
			}
		case *schemaObject:
			for i, k := range v.keys {
				switch sub := v.vals[i].(type) {
				case string:
					if k == "pattern" {
						held += patternHeld(sub)
					}
				case *schemaObject:
					if k == "patternProperties" {
						for _, p := range sub.keys {
							held += patternHeld(p)
						}
					}
				}
				walk(v.vals[i])
			}
		}
	}
	walk(tree)
	return held
}

// patternHeld is programHeld of the pattern expr, which the full engine compiles itself.
func patternHeld(expr string) int64 {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return 0
	}
	return programHeld(re)
}

// Validate checks the arguments as they came over the wire. It returns nil when they are
// valid; otherwise the violations: at each object, first every missing required member in
// the order of "required", then the members in their order in args.
func (v *Validator) Validate(args []byte) []Violation {
	var vs []Violation
	switch {
	case v.full != nil:
		// Syntax, depth and duplicate names first: decoding for the engine would hide them.
		if vs = v.wellFormed(args, true); vs == nil {
			vs = v.full(args, v.cfg.maxViolations)
		}
	case v.quickObject && len(args) > 0 && args[0] == '{':
		// The quick pass (see quickValid) on the common arguments, without a call for it.
		q := quick{d: args, maxDepth: v.cfg.maxDepth}
		if i, ok := q.object(v.root, 0, 0); ok && jsontext.SkipSpace(args, i) == len(args) {
			return nil
		}
		vs = v.violations(args)
	case v.quickValid(args):
		return nil
	default:
		vs = v.violations(args)
	}
	if vs != nil && v.cfg.hints {
		v.hint(args, vs)
	}
	return vs
}

// violations runs the explaining pass: it finds every violation, in order, with its path.
func (v *Validator) violations(args []byte) []Violation {
	s := v.state(args)
	s.root()
	out := s.result()
	v.release(s)
	return out
}

// root checks the whole arguments against the whole schema.
func (s *state) root() {
	s.skipWS()
	if s.v.objectRoot && s.pos < len(s.data) && s.data[s.pos] == '{' {
		s.object(s.v.root, 0)
	} else {
		s.value(s.v.root, 0)
	}
	s.end()
}

// wellFormed checks only what holds for every schema: one JSON value, nested no deeper
// than the limit, with unique member names. forEngine also refuses numbers the full
// engine cannot take.
func (v *Validator) wellFormed(args []byte, forEngine bool) []Violation {
	s := v.state(args)
	s.forEngine = forEngine
	s.value(nil, 0)
	s.end()
	out := s.result()
	v.release(s)
	return out
}

func (v *Validator) state(args []byte) *state {
	s := v.spare.Swap(nil)
	if s == nil {
		s, _ = v.pool.Get().(*state)
	}
	if s == nil {
		s = &state{}
	}
	s.reset(v, args)
	return s
}

// release keeps a finished call's state for the next one, without the memory a large or
// hostile call made it grow.
func (v *Validator) release(s *state) {
	if s.oversized() {
		return
	}
	s.data = nil
	if len(s.typeLists) > 0 {
		clear(s.typeLists)
		s.typeLists = s.typeLists[:0]
	}
	if !v.spare.CompareAndSwap(nil, s) {
		v.pool.Put(s)
	}
}
