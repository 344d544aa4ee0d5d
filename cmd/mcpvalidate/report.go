package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// report reads the JSON lines a guard's logger writes (WithLogger, proxy -log) and tells,
// per tool, what models get wrong and what to change in the tool's schema or description.
// It holds counts, not lines: its memory is bounded by the caps below whatever the log's
// size, and its time is linear in the log's bytes.

const (
	maxLine  = 1 << 20 // bytes of a line read; a longer one is counted as malformed
	maxTools = 1000    // tools tracked by name; the others are summed as one
	maxKeys  = 20000   // (kind, path), (path, type) and (path, value) pairs tracked, over all tools
	maxKey   = 512     // bytes of a tool name, path or value tracked; a longer one counts as other
)

// A lineKind is what one of the guard's lines tells.
type lineKind uint8

const (
	lineRefused lineKind = iota + 1
	lineWouldRefuse
	lineResultRefused
	lineBroken
	lineRepaired
	lineAccepted
	lineUnknownTool
	lineUnknownPassed
	lineSchemaChanged
)

// guardMessages are the messages of the guard's lines (guard.WithLogger).

var guardMessages = map[string]lineKind{
	"mcpvalidate: tool call refused":                                                                 lineRefused,
	"mcpvalidate: tool call would be refused; it ran (report-only)":                                  lineWouldRefuse,
	"mcpvalidate: tool result does not match its output schema; the client was told the tool failed": lineResultRefused,
	"mcpvalidate: tool result does not match its output schema; it was sent (report-only)":           lineResultRefused,
	"mcpvalidate: tool schema does not compile; calls are refused":                                   lineBroken,
	"mcpvalidate: tool schema does not compile; calls would be refused and run (report-only)":        lineBroken,
	"mcpvalidate: tool call repaired":                                                                lineRepaired,
	"mcpvalidate: tool call accepted":                                                                lineAccepted,
	"mcpvalidate: call of a tool the server does not list refused":                                   lineUnknownTool,
	"mcpvalidate: call of a tool the server does not list passed on unchecked":                       lineUnknownPassed,
	"mcpvalidate: the server's tool schemas changed":                                                 lineSchemaChanged,
}

// proxyPrefix begins the messages of the proxy's own faults (a server that exits, a tool
// list that cannot be fetched).
const proxyPrefix = "mcpvalidate proxy: "

// logLine is what report reads of a line.
type logLine struct {
	Msg        string   `json:"msg"`
	Service    string   `json:"service"`
	Server     string   `json:"server"`
	Tool       string   `json:"tool"`
	Kinds      []string `json:"kinds"`
	Paths      []string `json:"paths"`
	More       uint64   `json:"more"`
	Retries    uint64   `json:"retries"`
	Error      string   `json:"error"`
	TypeMisses []struct {
		Path    string   `json:"path"`
		Sent    string   `json:"sent"`
		Allowed []string `json:"allowed"`
	} `json:"type_misses"`
	EnumMisses []struct {
		Path string `json:"path"`
		Sent string `json:"sent"`
	} `json:"enum_misses"`
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []struct {
		Tool string `json:"tool"`
	} `json:"changed"`
}

// A Report is what report prints: the lines read, and each tool's summary.
type Report struct {
	Lines     uint64 `json:"lines"`     // lines read
	Guard     uint64 `json:"guard"`     // the guard's lines about tool calls
	Proxy     uint64 `json:"proxy"`     // the proxy's lines about its own faults
	Unknown   uint64 `json:"unknown"`   // JSON objects that are neither
	Malformed uint64 `json:"malformed"` // not JSON objects, of the wrong shape, or longer than 1 MiB
	// AcceptedLogged: the log holds accepted calls that repaired nothing (logged at
	// Debug), so accepted calls, and calls per accepted call, are counted.
	AcceptedLogged bool `json:"accepted_logged"`
	// Least is the refusals from which a count earns a suggestion: -min, or one in a
	// thousand of the log's refusals when that is more.
	Least        uint64        `json:"least"`
	Tools        []ToolSummary `json:"tools"`
	UnknownTools UnknownTools  `json:"unknown_tools"`
}

// UnknownTools are the calls of tools the server does not list (a proxy's), which make no
// tool of their own: the names a model makes up are counted apart, within the caps.
type UnknownTools struct {
	Calls      uint64  `json:"calls"`
	Passed     uint64  `json:"passed"`      // of Calls, those passed on to the server unchecked
	Names      []Count `json:"names"`       // the names called most often, as the log shows them
	OtherNames uint64  `json:"other_names"` // calls of the names not shown
}

// A ToolSummary is what the log tells of one tool of one server, or, when Other, of the
// tools past the 1,000 tracked by name. A log that several servers wrote to names each
// line's service and server (proxy -service, and the server's own name): tools of one
// name on two of them are two tools.
type ToolSummary struct {
	Tool    string `json:"tool"`
	Service string `json:"service,omitempty"` // as the line's "service" gave it
	Server  string `json:"server,omitempty"`  // as the line's "server" gave it
	Other   bool   `json:"other,omitempty"`
	// Calls: the calls the log shows, refused, with a broken schema or accepted; without
	// accepted calls logged, those that repaired refusals or had their result refused.
	Calls             uint64   `json:"calls"`
	Accepted          uint64   `json:"accepted"`    // logged: as Calls says
	Refused           uint64   `json:"refused"`     // argument refusals
	ReportOnly        uint64   `json:"report_only"` // of Refused, those that ran (WithReportOnly)
	Repaired          uint64   `json:"repaired"`    // accepted calls that repaired refusals
	Retries           uint64   `json:"retries"`     // the refusals they repaired
	SchemaBroken      uint64   `json:"schema_broken"`
	ResultRefused     uint64   `json:"result_refused"`
	CallsPerAccepted  *float64 `json:"calls_per_accepted,omitempty"`  // when accepted calls are logged
	RefusalsPerRepair *float64 `json:"refusals_per_repair,omitempty"` // when a call was repaired
	Violations        uint64   `json:"violations"`                    // listed in refusals
	NotListed         uint64   `json:"not_listed"`                    // counted under "more", their paths not logged
	Kinds             []Count  `json:"kinds"`
	Paths             []Count  `json:"paths"`       // the most frequent, each with its kind
	OtherPaths        uint64   `json:"other_paths"` // violations at paths not shown
	TypeMisses        []Count  `json:"type_misses"` // the types sent where others are allowed, each with its path
	OtherTypes        uint64   `json:"other_types"`
	EnumMisses        []Count  `json:"enum_misses"` // the values sent outside an enum, each with its path
	OtherMisses       uint64   `json:"other_misses"`
	SchemaError       string   `json:"schema_error,omitempty"` // the first broken schema's error
	// SchemaChanges counts the changes of the tool's schemas the log tells of (the
	// proxy's "the server's tool schemas changed": added, removed or changed); Before
	// and After are the tool's calls up to the last of them, and since.
	SchemaChanges uint64   `json:"schema_changes,omitempty"`
	Before        *Period  `json:"before_change,omitempty"`
	After         *Period  `json:"after_change,omitempty"`
	Suggestions   []string `json:"suggestions"`
}

// A Period is a tool's calls in part of the log: before its schema's last change, or
// since.
type Period struct {
	Calls   uint64 `json:"calls"`
	Refused uint64 `json:"refused"`
	// RefusedShare is Refused over Calls, when accepted calls are logged (so Calls counts
	// them all).
	RefusedShare *float64 `json:"refused_share,omitempty"`
}

// A Count is how often a kind, a path (with its kind), a type or a value (with its path)
// was seen.
type Count struct {
	Tool    string `json:"tool,omitempty"`    // a tool the server does not list
	Service string `json:"service,omitempty"` // of a tool the server does not list
	Server  string `json:"server,omitempty"`  // likewise
	Kind    string `json:"kind,omitempty"`
	Path    string `json:"path,omitempty"`
	Sent    string `json:"sent,omitempty"`
	Allowed string `json:"allowed,omitempty"` // the types allowed where Sent is a type
	Count   uint64 `json:"count"`
}

// reportOptions are report's flags.
type reportOptions struct {
	top   int     // paths and values shown per tool
	share float64 // of a tool's refusals, for a suggestion
	least uint64  // refusals, for a suggestion
}

func reportCommand(fs *flag.FlagSet) action {
	asJSON := fs.Bool("json", false, "print the report as JSON")
	top := fs.Int("top", 10, "paths, types and enum values listed per tool")
	share := fs.Float64("share", 0.2, "share of a tool's refusals from which a path earns a suggestion")
	least := fs.Uint64("min", 3, "refusals from which a path earns a suggestion")
	return func(stdin io.Reader, stdout, _ io.Writer) (int, error) {
		if fs.NArg() != 1 || *top < 1 || *share <= 0 || *share > 1 {
			return 0, fmt.Errorf("%w: report needs one log file (or - for stdin), -top of at least 1 and -share in (0, 1]", errUsage)
		}
		in := stdin
		if name := fs.Arg(0); name != "-" {
			f, err := os.Open(name)
			if err != nil {
				return 0, err
			}
			defer f.Close()
			in = f
		}
		r, err := readLog(in, reportOptions{top: *top, share: *share, least: max(*least, 1)})
		if err != nil {
			return 0, err
		}
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return 0, enc.Encode(r)
		}
		return 0, r.write(stdout)
	}
}

// tally counts the keys it holds, and, past the budget shared by every tally, the rest as
// other.
type tally struct {
	counts map[string]uint64
	other  uint64
}

func (t *tally) add(key string, n uint64, budget *int) {
	if c, ok := t.counts[key]; ok {
		t.counts[key] = c + n
		return
	}
	if *budget <= 0 || len(key) > maxKey {
		t.other += n
		return
	}
	*budget--
	if t.counts == nil {
		t.counts = map[string]uint64{}
	}
	t.counts[key] = n
}

// toolCounts is one tool's counts as the log is read.
type toolCounts struct {
	s      ToolSummary
	atLast *ToolSummary // its counts at its schema's last change
	kinds  tally
	paths  tally // kind "\x00" path
	types  tally // path "\x00" type sent "\x00" types allowed
	misses tally // path "\x00" value
}

// reader is a log being read.
type reader struct {
	r      Report
	o      reportOptions
	tools  map[string]*toolCounts
	other  *toolCounts // the tools past maxTools
	budget int         // keys left to track
	names  tally       // of the tools the server does not list
}

// readLog reads a log and sums it up.
func readLog(in io.Reader, o reportOptions) (*Report, error) {
	rd := &reader{o: o, tools: map[string]*toolCounts{}, budget: maxKeys}
	err := eachLine(in, func(line []byte, whole bool) {
		rd.r.Lines++
		if !whole {
			rd.r.Malformed++
			return
		}
		rd.line(line)
	})
	if err != nil {
		return nil, err
	}
	return rd.summary(), nil
}

// eachLine calls f with each line of in that is not blank, without the spaces around it;
// whole is false for a line longer than maxLine, which f gets none of.
func eachLine(in io.Reader, f func(line []byte, whole bool)) error {
	br := bufio.NewReaderSize(in, 64<<10)
	var long []byte // a line longer than the buffer, up to maxLine
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if !tooLong && len(long)+len(chunk) <= maxLine {
				long = append(long, chunk...)
			} else {
				tooLong, long = true, long[:0]
			}
			continue
		case err != nil && !errors.Is(err, io.EOF):
			return err
		}
		line := chunk
		if len(long) > 0 || tooLong {
			if !tooLong && len(long)+len(chunk) <= maxLine {
				line = append(long, chunk...)
			} else {
				tooLong = true
			}
		}
		if line = bytes.TrimSpace(line); tooLong || len(line) > 0 {
			f(line, !tooLong)
		}
		long, tooLong = long[:0], false
		if err != nil {
			return nil
		}
	}
}

// line reads one whole line.
func (rd *reader) line(b []byte) {
	if b[0] != '{' {
		rd.r.Malformed++
		return
	}
	var l logLine
	if err := json.Unmarshal(b, &l); err != nil {
		rd.r.Malformed++
		return
	}
	kind, ok := guardMessages[l.Msg]
	switch {
	case ok:
		rd.r.Guard++
	case strings.HasPrefix(l.Msg, proxyPrefix):
		rd.r.Proxy++
		return
	default:
		rd.r.Unknown++
		return
	}
	if kind == lineSchemaChanged {
		changed := append(append([]string{}, l.Added...), l.Removed...)
		for _, c := range l.Changed {
			changed = append(changed, c.Tool)
		}
		for _, name := range changed {
			t := rd.tool(l.Service, l.Server, name)
			t.s.SchemaChanges++
			at := t.s
			t.atLast = &at
		}
		return
	}
	if kind == lineUnknownTool || kind == lineUnknownPassed {
		rd.r.UnknownTools.Calls++
		if kind == lineUnknownPassed {
			rd.r.UnknownTools.Passed++
		}
		rd.names.add(l.Service+"\x00"+l.Server+"\x00"+l.Tool, 1, &rd.budget)
		return
	}
	t := rd.tool(l.Service, l.Server, l.Tool)
	s := &t.s
	switch kind {
	case lineRefused, lineWouldRefuse:
		s.Refused++
		if kind == lineWouldRefuse {
			s.ReportOnly++
		}
		s.NotListed = addSat(s.NotListed, l.More)
		for i, k := range l.Kinds {
			path := ""
			if i < len(l.Paths) {
				path = l.Paths[i]
			}
			s.Violations++
			t.kinds.add(k, 1, &rd.budget)
			t.paths.add(k+"\x00"+path, 1, &rd.budget)
		}
		for _, m := range l.TypeMisses {
			t.types.add(m.Path+"\x00"+m.Sent+"\x00"+strings.Join(m.Allowed, " or "), 1, &rd.budget)
		}
		for _, m := range l.EnumMisses {
			t.misses.add(m.Path+"\x00"+m.Sent, 1, &rd.budget)
		}
	case lineResultRefused:
		s.ResultRefused++
	case lineBroken:
		s.SchemaBroken++
		if s.SchemaError == "" {
			s.SchemaError = clip(l.Error, maxKey)
		}
	case lineRepaired:
		s.Repaired++
		s.Retries = addSat(s.Retries, l.Retries)
		s.Accepted++
	case lineAccepted:
		rd.r.AcceptedLogged = true
		s.Accepted++
	}
}

// perThousand: a count earns a suggestion from one in this many of the log's refusals.
const perThousand = 1000

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// addSat returns a+b, or the largest count when that wraps around.
func addSat(a, b uint64) uint64 {
	if a+b < a {
		return math.MaxUint64
	}
	return a + b
}

// tool returns the counts of the tool name of server and service, or of the other tools
// past the cap.
func (rd *reader) tool(service, server, name string) *toolCounts {
	key := service + "\x00" + server + "\x00" + name
	if t, ok := rd.tools[key]; ok {
		return t
	}
	if len(rd.tools) < maxTools && len(key) <= maxKey {
		t := &toolCounts{s: ToolSummary{Tool: name, Service: service, Server: server}}
		rd.tools[key] = t
		return t
	}
	if rd.other == nil {
		rd.other = &toolCounts{s: ToolSummary{Other: true}}
	}
	return rd.other
}

// summary sums each tool up: first those refused repeatedly and never repaired, then the
// most refused, then by name. A count earns a suggestion from o.least, or from one in
// perThousand of the log's refusals when that is more, so that a large log's noise does
// not.
func (rd *reader) summary() *Report {
	r := rd.r
	all := make([]*toolCounts, 0, len(rd.tools)+1)
	var refused uint64
	for _, t := range rd.tools {
		all = append(all, t)
		refused = addSat(refused, t.s.Refused)
	}
	o := rd.o
	o.least = max(o.least, (refused+perThousand-1)/perThousand)
	stuck := func(t *toolCounts) bool { return t.s.Refused >= o.least && t.s.Repaired == 0 }
	slices.SortFunc(all, func(a, b *toolCounts) int {
		return cmp.Or(-cmp.Compare(b2i(stuck(a)), b2i(stuck(b))),
			-cmp.Compare(a.s.Refused+a.s.SchemaBroken+a.s.ResultRefused, b.s.Refused+b.s.SchemaBroken+b.s.ResultRefused),
			strings.Compare(a.s.Tool, b.s.Tool), strings.Compare(a.s.Service, b.s.Service), strings.Compare(a.s.Server, b.s.Server))
	})
	if rd.other != nil {
		all = append(all, rd.other)
	}
	r.Tools = make([]ToolSummary, 0, len(all))
	r.Least = o.least
	for _, t := range all {
		r.Tools = append(r.Tools, t.summary(r.AcceptedLogged, o))
	}
	u := &r.UnknownTools
	u.Names, u.OtherNames = []Count{}, rd.names.other
	for i, c := range sorted(rd.names.counts) {
		if i >= rd.o.top {
			u.OtherNames += c.n
			continue
		}
		parts := strings.SplitN(c.key, "\x00", 3)
		u.Names = append(u.Names, Count{Service: parts[0], Server: parts[1], Tool: parts[2], Count: c.n})
	}
	return &r
}

func (t *toolCounts) summary(acceptedLogged bool, o reportOptions) ToolSummary {
	s := t.s
	// Without accepted calls logged, only those that repaired refusals are, and those
	// whose result was refused: each a call of its own.
	s.Calls = calls(s, acceptedLogged)
	if acceptedLogged && s.Accepted > 0 {
		s.CallsPerAccepted = ratio(s.Calls, s.Accepted)
	}
	if s.Repaired > 0 {
		s.RefusalsPerRepair = ratio(s.Retries, s.Repaired)
	}
	s.Kinds = []Count{}
	for _, c := range sorted(t.kinds.counts) {
		s.Kinds = append(s.Kinds, Count{Kind: c.key, Count: c.n})
	}
	if t.kinds.other > 0 {
		s.Kinds = append(s.Kinds, Count{Kind: "other", Count: t.kinds.other})
	}
	paths := sorted(t.paths.counts)
	s.Paths, s.OtherPaths = []Count{}, t.paths.other
	for i, c := range paths {
		if i == o.top {
			s.OtherPaths += c.n
			continue
		}
		kind, path, _ := strings.Cut(c.key, "\x00")
		s.Paths = append(s.Paths, Count{Kind: kind, Path: path, Count: c.n})
	}
	types := sorted(t.types.counts)
	s.TypeMisses, s.OtherTypes = []Count{}, t.types.other
	for i, c := range types {
		if i == o.top {
			s.OtherTypes += c.n
			continue
		}
		parts := strings.SplitN(c.key, "\x00", 3)
		s.TypeMisses = append(s.TypeMisses, Count{Path: parts[0], Sent: parts[1], Allowed: parts[2], Count: c.n})
	}
	misses := sorted(t.misses.counts)
	s.EnumMisses, s.OtherMisses = []Count{}, t.misses.other
	for i, c := range misses {
		if i == o.top {
			s.OtherMisses += c.n
			continue
		}
		path, sent, _ := strings.Cut(c.key, "\x00")
		s.EnumMisses = append(s.EnumMisses, Count{Path: path, Sent: sent, Count: c.n})
	}
	if t.atLast != nil {
		before := calls(*t.atLast, acceptedLogged)
		s.Before = period(before, t.atLast.Refused, acceptedLogged)
		s.After = period(s.Calls-before, s.Refused-t.atLast.Refused, acceptedLogged)
	}
	s.Suggestions = suggestions(&s, paths, types, misses, o)
	return s
}

// calls counts the calls of s, as summary does.
func calls(s ToolSummary, acceptedLogged bool) uint64 {
	if acceptedLogged {
		return s.Refused + s.SchemaBroken + s.Accepted
	}
	return s.Refused + s.SchemaBroken + s.Accepted + s.ResultRefused
}

func period(calls, refused uint64, acceptedLogged bool) *Period {
	p := &Period{Calls: calls, Refused: refused}
	if acceptedLogged && calls > 0 {
		p.RefusedShare = ratio(refused, calls)
	}
	return p
}

// keyed is a key and its count.
type keyed struct {
	key string
	n   uint64
}

// sorted returns the counts, the largest first, then by key.
func sorted(m map[string]uint64) []keyed {
	out := make([]keyed, 0, len(m))
	for k, n := range m {
		out = append(out, keyed{k, n})
	}
	slices.SortFunc(out, func(a, b keyed) int { return cmp.Or(-cmp.Compare(a.n, b.n), strings.Compare(a.key, b.key)) })
	return out
}

func ratio(a, b uint64) *float64 {
	r := float64(a) / float64(b)
	return &r
}

// suggestions tells what the counts suggest changing: a path that at least o.least
// refusals, and o.share of the tool's, found missing, of the wrong type or undeclared, and
// a value sent outside an enum as often.
func suggestions(s *ToolSummary, paths, types, misses []keyed, o reportOptions) []string {
	out := []string{}
	if s.Refused >= o.least && s.Repaired == 0 {
		out = append(out, fmt.Sprintf("refused %d times and never repaired: models cannot find out how to call it from its schema and description; start here", s.Refused))
	}
	if s.SchemaBroken > 0 {
		out = append(out, fmt.Sprintf("its schema does not compile, so every call is refused (%d): fix it", s.SchemaBroken))
	}
	if s.ResultRefused > 0 {
		out = append(out, fmt.Sprintf("its results did not match its outputSchema (%d withheld): the server or the schema is wrong, not the model", s.ResultRefused))
	}
	if b, a := s.Before, s.After; a != nil && a.RefusedShare != nil && a.Refused >= o.least && (b.RefusedShare == nil || *a.RefusedShare > 2**b.RefusedShare) {
		before := "none before"
		if b.RefusedShare != nil {
			before = fmt.Sprintf("%.0f%%", 100**b.RefusedShare)
		}
		out = append(out, fmt.Sprintf("refusals rose to %.0f%% of its calls (from %s) after its schema last changed: look at the change first", 100**a.RefusedShare, before))
	}
	often := func(n uint64) bool { return n >= o.least && float64(n) >= o.share*float64(s.Refused) }
	of := func(n uint64) string { return fmt.Sprintf("%d of %d refusals", n, s.Refused) }
	for _, c := range paths {
		if !often(c.n) {
			break // sorted: the rest are rarer
		}
		kind, path, _ := strings.Cut(c.key, "\x00")
		p := shown(path)
		switch kind {
		case "required":
			out = append(out, fmt.Sprintf("models leave out %s (%s): describe it in the tool's description or give it a default; or consider making it optional", p, of(c.n)))
		case "type":
			sent := "the wrong type"
			if i := slices.IndexFunc(types, func(k keyed) bool { return strings.HasPrefix(k.key, path+"\x00") }); i >= 0 {
				parts := strings.SplitN(types[i].key, "\x00", 3)
				sent = shown(parts[1]) + " where " + shown(parts[2]) + " belongs"
			}
			out = append(out, fmt.Sprintf("models send %s for %s (%s): say its type, unit or format in its description", sent, p, of(c.n)))
		case "additional":
			out = append(out, fmt.Sprintf("models send %s, which the schema does not declare (%s): add it or an alias, or say in the description what to send instead", p, of(c.n)))
		}
	}
	for _, c := range misses {
		if !often(c.n) {
			break
		}
		path, sent, _ := strings.Cut(c.key, "\x00")
		out = append(out, fmt.Sprintf("models send %s for %s (%d times): consider adding %s to the enum, or list the allowed values in the description", shown(sent), shown(path), c.n, shown(sent)))
	}
	return out
}

// write prints the report as text.
func (r *Report) write(w io.Writer) error {
	b := &bytes.Buffer{}
	fmt.Fprintf(b, "%d lines: %d from the guard, %d from the proxy, %d unknown, %d malformed\n", r.Lines, r.Guard, r.Proxy, r.Unknown, r.Malformed)
	if !r.AcceptedLogged {
		b.WriteString("Accepted calls are not in the log, only those that repaired refusals: calls are those seen, and\n" +
			"calls per accepted call is not known (log at Debug: -log-accepted).\n")
	}
	if u := r.UnknownTools; u.Calls > 0 {
		fmt.Fprintf(b, "\ncalls of tools the server does not list: %d (%d passed on unchecked)\n", u.Calls, u.Passed)
		for _, c := range u.Names {
			fmt.Fprintf(b, "    %6d  %s%s\n", c.Count, toolName(c.Tool), whose(c.Service, c.Server))
		}
		if u.OtherNames > 0 {
			fmt.Fprintf(b, "    %6d  other names\n", u.OtherNames)
		}
	}
	for _, t := range r.Tools {
		name := shown(t.Tool)
		if t.Tool == "" {
			name = `""`
		}
		if t.Other {
			name = "(the other tools, past the first 1000)"
		}
		fmt.Fprintf(b, "\n%s%s\n", name, whose(t.Service, t.Server))
		fmt.Fprintf(b, "  calls: %d (%d accepted, %d refused", t.Calls, t.Accepted, t.Refused)
		if t.ReportOnly > 0 {
			fmt.Fprintf(b, ", of which %d ran: report-only", t.ReportOnly)
		}
		if t.SchemaBroken > 0 {
			fmt.Fprintf(b, ", %d refused for a broken schema", t.SchemaBroken)
		}
		b.WriteString(")")
		if t.ResultRefused > 0 {
			fmt.Fprintf(b, "; results withheld: %d", t.ResultRefused)
		}
		b.WriteString("\n")
		if t.Refused > 0 || t.Repaired > 0 {
			fmt.Fprintf(b, "  repairs: %d calls repaired %d refusals", t.Repaired, t.Retries)
			if t.RefusalsPerRepair != nil {
				fmt.Fprintf(b, "; refusals per repair %.2f", *t.RefusalsPerRepair)
			}
			if t.CallsPerAccepted != nil {
				fmt.Fprintf(b, "; calls per accepted call %.2f", *t.CallsPerAccepted)
			}
			b.WriteString("\n")
		}
		if t.SchemaError != "" {
			fmt.Fprintf(b, "  schema error: %s\n", shown(t.SchemaError))
		}
		if t.SchemaChanges > 0 {
			fmt.Fprintf(b, "  schema changes: %d; before the last: %s; since: %s\n", t.SchemaChanges, t.Before, t.After)
		}
		if len(t.Kinds) > 0 {
			b.WriteString("  violations by kind:")
			for i, k := range t.Kinds {
				if i > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(b, " %s %d", shown(k.Kind), k.Count)
			}
			if t.NotListed > 0 {
				fmt.Fprintf(b, "; %d more not listed in the log", t.NotListed)
			}
			b.WriteString("\n")
		}
		if len(t.Paths) > 0 {
			b.WriteString("  violations by path:\n")
			for _, p := range t.Paths {
				fmt.Fprintf(b, "    %6d  %-12s %s\n", p.Count, shown(p.Kind), shown(p.Path))
			}
			if t.OtherPaths > 0 {
				fmt.Fprintf(b, "    %6d  at other paths\n", t.OtherPaths)
			}
		}
		if len(t.TypeMisses) > 0 {
			b.WriteString("  types sent where others belong:\n")
			for _, m := range t.TypeMisses {
				fmt.Fprintf(b, "    %6d  %s: %s, not %s\n", m.Count, shown(m.Path), shown(m.Sent), shown(m.Allowed))
			}
			if t.OtherTypes > 0 {
				fmt.Fprintf(b, "    %6d  others\n", t.OtherTypes)
			}
		}
		if len(t.EnumMisses) > 0 {
			b.WriteString("  values sent outside an enum:\n")
			for _, m := range t.EnumMisses {
				fmt.Fprintf(b, "    %6d  %s = %s\n", m.Count, shown(m.Path), shown(m.Sent))
			}
			if t.OtherMisses > 0 {
				fmt.Fprintf(b, "    %6d  other values\n", t.OtherMisses)
			}
		}
		if len(t.Suggestions) > 0 {
			b.WriteString("  suggestions:\n")
			for _, s := range t.Suggestions {
				fmt.Fprintf(b, "    - %s\n", s)
			}
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// shown returns s as it may be printed: as it is when every character prints as itself,
// else quoted with escapes, so that a hostile log cannot move the terminal's cursor or
// turn its text around.
func shown(s string) string {
	for _, r := range s {
		if !unicode.IsGraphic(r) || unicode.Is(unicode.Cf, r) || r == unicode.ReplacementChar {
			return strconv.QuoteToASCII(s)
		}
	}
	return s
}

// String says how many calls of the period were refused.
func (p *Period) String() string {
	out := fmt.Sprintf("%d refused of %d calls", p.Refused, p.Calls)
	if p.RefusedShare != nil {
		out += fmt.Sprintf(" (%.0f%%)", 100**p.RefusedShare)
	}
	return out
}

// whose says which server and service a tool is of, when the log said: " (server s,
// service v)".
func whose(service, server string) string {
	var parts []string
	if server != "" {
		parts = append(parts, "server "+shown(server))
	}
	if service != "" {
		parts = append(parts, "service "+shown(service))
	}
	if parts == nil {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// toolName returns the name of a tool the server does not list as it may be printed: as
// it is when made of ASCII letters, digits, '_', '-', '.' and '/', else quoted with
// escapes, so that "weather " reads apart from weather.
func toolName(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !('a' <= c && c <= 'z' || '0' <= s[i] && s[i] <= '9' || strings.IndexByte("_-./", s[i]) >= 0) {
			return strconv.Quote(s)
		}
	}
	if s == "" {
		return `""`
	}
	return s
}

// clip cuts s to at most n bytes, at a rune's start.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
