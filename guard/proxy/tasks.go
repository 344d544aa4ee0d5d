package proxy

import (
	"bytes"
	"crypto/sha256"
	"strconv"
	"strings"
)

// This file checks a task's result (MCP 2025-11-25) under Options.Output: a
// task-augmented tools/call is answered with a task, and its CallToolResult comes later,
// as the answer to the client's tasks/result. The session remembers which tool each task
// runs, from the server's answer to the call, and checks that answer against it.

// maxTasks bounds the tasks a session keeps whose results await their check: past it, a
// new task-augmented call of a tool whose results are checked is refused by the proxy.
// Tasks whose results were checked and sent count too, but go first to make room.
const maxTasks = 1024

// maxTaskKey is the length past which a taskId is remembered by its SHA-256, so that what
// a task costs does not grow with its id.
const maxTaskKey = 64

// A taskTool is the tool a task runs, as the call that made it was checked.
type taskTool struct {
	name string
	tool *tool
	// twice: the server gave the task's id (or one of the same key) to calls of two
	// tools, or of a tool listed two ways: which outputSchema its result meets is not known.
	twice bool
	// delivered: the number of the task's delivery among the session's, once its result
	// was checked and sent; 0 before.
	delivered uint64
}

// tasks are a session's tasks whose results are to be checked, by task key. The
// session's mu guards them.
type tasks struct {
	tools       map[string]taskTool
	undelivered int // of tools: whose results were never checked and sent
	calls       int // task-augmented calls of tools whose results are checked, in flight
	deliveries  uint64
	delivered   []delivery // oldest first; some may be forgotten or made again already
}

// A delivery is the delivery number of a task's result.
// unchecked is the tasks of tools whose results are not checked, at most maxTasks, the
// earliest forgotten first: their results are known to pass.
type unchecked struct {
	keys  map[string]bool
	order []string
}

// add records the task key.
func (u *unchecked) add(key string) {
	if u.keys[key] {
		return
	}
	if u.keys == nil {
		u.keys = map[string]bool{}
	}
	if len(u.order) >= maxTasks {
		delete(u.keys, u.order[0])
		u.order = u.order[1:]
	}
	u.keys[key] = true
	u.order = append(u.order, key)
}

type delivery struct {
	key string
	n   uint64
}

// tooManyTasks is why the proxy refuses a task-augmented call when a session has maxTasks
// tasks whose results await their check.
var tooManyTasks = "Too many tasks await their results in this MCP session: the mcpvalidate proxy checks the results of at most " +
	strconv.Itoa(maxTasks) + " tasks at a time. Fetch the results of earlier tasks (tasks/result), or cancel them, then call again."

// taskKey is the key of the taskId v (raw JSON): never "", and "" when v is not a string.
// A long id is hashed from its bytes when it has no escapes, so that its key costs no
// copy of it.
func taskKey(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	id := v[1 : len(v)-1]
	if bytes.IndexByte(id, '\\') >= 0 {
		s, ok := stringValue(v)
		if !ok {
			return ""
		}
		id = []byte(s)
	}
	if len(id) <= maxTaskKey {
		return "=" + string(id)
	}
	sum := sha256.Sum256(id)
	return "#" + string(sum[:])
}

// full reports whether no task slot is left for another task-augmented call.
func (ts *tasks) full() bool { return ts.undelivered+ts.calls >= maxTasks }

// remember records that the task key runs tool t of name, in place of the slot the call
// that made it held; the session's mu is held. Delivered tasks are forgotten, the
// earliest delivered first, to keep within maxTasks; undelivered ones never are.
func (ts *tasks) remember(key, name string, t *tool) {
	ts.calls--
	if ts.tools == nil {
		ts.tools = map[string]taskTool{}
	}
	old, known := ts.tools[key]
	if !known || old.delivered != 0 {
		ts.undelivered++
	}
	twice := known && old.delivered == 0 && (old.twice || old.name != name || !sameTool(old.tool, t)) // a delivered task is done with
	for !known && len(ts.tools) >= maxTasks && len(ts.delivered) > 0 {
		d := ts.delivered[0]
		ts.delivered = ts.delivered[1:]
		if tt, ok := ts.tools[d.key]; ok && tt.delivered == d.n {
			delete(ts.tools, d.key)
		}
	}
	ts.tools[key] = taskTool{name: name, tool: t, twice: twice}
}

func sameTool(a, b *tool) bool { return a == b || a != nil && b != nil && a.same(b) }

// deliver records that the result of the task key was checked and sent.
func (ts *tasks) deliver(key string) {
	tt, ok := ts.tools[key]
	if !ok || tt.delivered != 0 {
		return
	}
	ts.undelivered--
	ts.deliveries++
	tt.delivered = ts.deliveries
	ts.tools[key] = tt
	if len(ts.delivered) >= 2*maxTasks { // drop the deliveries of tasks forgotten already
		kept := make([]delivery, 0, maxTasks+1)
		for _, d := range ts.delivered {
			if tt, ok := ts.tools[d.key]; ok && tt.delivered == d.n {
				kept = append(kept, d)
			}
		}
		ts.delivered = kept
	}
	ts.delivered = append(ts.delivered, delivery{key, tt.delivered})
}

// forget forgets the task key.
func (ts *tasks) forget(key string) {
	if tt, ok := ts.tools[key]; ok {
		if tt.delivered == 0 {
			ts.undelivered--
		}
		delete(ts.tools, key)
	}
}

// reserve takes a task slot for the task-augmented call q, of a tool whose results are
// checked; false when none is left. The session's mu is held.
func (ts *tasks) reserve(q *pending) bool {
	if ts.full() {
		return false
	}
	ts.calls++
	q.slot = true
	return true
}

// free frees the task slot q holds, if any; the session's mu is held.
func (ts *tasks) free(q *pending) {
	if q != nil && q.slot {
		q.slot = false
		ts.calls--
	}
}

func (s *session) forgetTask(key string) {
	s.mu.Lock()
	s.tasks.forget(key)
	s.mu.Unlock()
}

// uncheckedTask reports whether key is a task of a tool whose results are not checked.
func (s *session) uncheckedTask(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unchecked.keys[key]
}

func (s *session) taskTool(key string) (taskTool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tt, ok := s.tasks.tools[key]
	return tt, ok
}

// checksResults reports whether results of t are checked: t declares an outputSchema,
// under Options.Output.
func (p *Proxy) checksResults(t *tool) bool {
	return t != nil && t.out != nil && p.guard.ChecksResults()
}

// taskMade takes the task of the server's answer to a task-augmented call (a
// CreateTaskResult): when q holds a task slot, the task whose result is to be checked.
// Under Options.Output (output), a task of a tool whose results are not checked is
// recorded as such.
func (s *session) taskMade(q *pending, task []byte, output bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := taskKey(member(task, "taskId"))
	if !q.slot {
		if output && key != "" {
			s.unchecked.add(key)
		}
		return
	}
	if key != "" {
		q.slot = false
		s.tasks.remember(key, q.name, q.tool)
		return
	}
	s.tasks.free(q)
}

// taskChosen takes the task the server made for the call q of its own accord (the tasks
// extension: a CreateTaskResult, the task's state flat in it): when checked, the task
// whose result is to be checked, in a slot while one is left (else its result, of a task
// the session does not know, is withheld); under Options.Output (output), a task of a
// tool whose results are not checked is recorded as such.
func (s *session) taskChosen(q *pending, task []byte, checked, output bool) {
	if checked {
		s.mu.Lock()
		room := s.tasks.reserve(q)
		s.mu.Unlock()
		if !room {
			return
		}
	}
	s.taskMade(q, task, output)
}

// taskResult checks the server's answer to tasks/result for the task q.task, and returns
// the answer that replaces it, or nil. A result that is a task's status (a task not
// done, in a server that answers so: a task or status member, and no content or
// structuredContent in any case) rather than a CallToolResult passes, and the task
// stays remembered. A CallToolResult, checked, marks the task delivered: fetched again,
// it is checked again while the session remembers it. The result of a task the session
// does not know is unknownTaskResult's.
func (p *Proxy) taskResult(s *session, q *pending, id, result []byte) []byte {
	if q.taskKey == "" || !callResult(result) && (member(result, "task") != nil || member(result, "status") != nil) {
		return nil
	}
	return p.checkTaskResult(s, q.taskKey, id, result, q.modern)
}

// checkTaskResult checks result, the result of the task key, as the answer to the request
// id, against its tool's outputSchema, and returns the answer that replaces it, or nil: the
// result of a task the session does not know is unknownTaskResult's. A result checked
// marks the task delivered.
func (p *Proxy) checkTaskResult(s *session, key string, id, result []byte, modern bool) []byte {
	tt, ok := s.taskTool(key)
	switch {
	case !ok && !s.uncheckedTask(key):
		return p.unknownTaskResult(s, id, result, modern, unknownTask)
	case tt.twice:
		return p.unknownTaskResult(s, id, result, modern, taskTwice)
	}
	repl := p.checkResult(s, tt.tool, tt.name, nil, id, result, modern)
	s.mu.Lock()
	s.tasks.deliver(key)
	s.mu.Unlock()
	return repl
}

// unknownTask is why a result of a task the session does not know is withheld.
const unknownTask = "The mcpvalidate proxy withheld this task's result: it did not see the call that made the task in this MCP session " +
	"(the call went through another proxy, the proxy restarted, or the task was forgotten to make room), so it could not check the result " +
	"against the tool's outputSchema. Call the tool again."

// taskTwice is why a result of a task whose id the server gave to calls of two tools is
// withheld.
const taskTwice = "The mcpvalidate proxy withheld this task's result: the server gave this task's id to calls of two tools in this MCP session, " +
	"so the proxy could not tell which tool's outputSchema the result must meet. Call the tool again."

// unknownTaskResult answers for the result of a task the session does not know (made
// through another proxy, before a restart, forgotten to make room, or another session's),
// or whose tool it does not know, for the reason why: under Options.Output, one that holds
// structuredContent, while a tool the session lists declares an outputSchema, could not be
// checked against the tool that made the task, and is withheld; nil for any other, which
// passes.
func (p *Proxy) unknownTaskResult(s *session, id, result []byte, modern bool, why string) []byte {
	if !p.guard.ChecksResults() || isTrue(member(result, "isError")) || !holdsStructured(result) || !s.listsOutputSchema() {
		return nil
	}
	return p.resultRefusal(id, why, nil, modern)
}

// holdsStructured reports whether result has structuredContent, in any case.
func holdsStructured(result []byte) bool {
	holds := false
	members(result, func(name string, _ []byte) {
		holds = holds || strings.EqualFold(name, "structuredContent")
	})
	return holds
}

// listsOutputSchema reports whether a tool of the session's list, or of a list not yet
// learned, may declare an outputSchema: true unless the list it holds is whole and
// declares none.
func (s *session) listsOutputSchema() bool {
	s.mu.Lock()
	tools, complete := s.list.get()
	s.mu.Unlock()
	if !complete {
		return true
	}
	for _, t := range tools {
		if t.out != nil {
			return true
		}
	}
	return false
}

// resultKind returns the resultType of result, "" when it has none. From 2026-07-28 a
// result may be other than the request's; the bytes tell at a glance whether one names a
// resultType, so that most results cost no second pass.
func resultKind(result []byte) string {
	if !bytes.Contains(result, []byte("resultType")) && !bytes.Contains(result, []byte(`\u`)) {
		return ""
	}
	kind, _ := stringValue(member(result, "resultType"))
	return kind
}

// callResult reports whether result carries a CallToolResult, which clients read as
// one, whatever else it carries (a task, a status): content, structuredContent or isError,
// in any case, or a resultType of "complete".
func callResult(result []byte) bool {
	kind := resultKind(result)
	holds := kind == "complete"
	members(result, func(name string, _ []byte) {
		holds = holds || strings.EqualFold(name, "content") || strings.EqualFold(name, "structuredContent") ||
			strings.EqualFold(name, "isError")
	})
	return holds
}

// taskDetail checks the result a task's full state carries, detail (the answer to
// tasks/get, or the params of notifications/tasks, of the tasks extension): once the task
// is completed, the result of the call that made it. It returns the state that replaces
// detail, its result withheld, or nil when detail goes on as it is. A state that names its
// task, its status or its result twice or in two cases is withheld under Options.Output
// as a result of a task the session does not know is.
func (p *Proxy) taskDetail(s *session, detail []byte, modern bool) []byte {
	s.taskStatus(detail)
	if requests := member(detail, "inputRequests"); requests != nil {
		p.inputRequested(s, "t"+taskKey(member(detail, "taskId")), requests)
	}
	result := member(detail, "result")
	ambiguous := ambiguousIn(detail, "taskId", "status", "result")
	if result == nil && !ambiguous || !p.guard.ChecksResults() {
		return nil
	}
	var repl []byte // an answer to a request of the id 0, of which the result is taken
	if ambiguous {
		repl = p.resultRefusal([]byte("0"), taskAmbiguous, nil, modern)
	} else {
		repl = p.checkTaskResult(s, taskKey(member(detail, "taskId")), []byte("0"), result, modern)
	}
	if repl == nil {
		return nil
	}
	return withMember(detail, "result", member(repl, "result"))
}

// taskAmbiguous is why a task's state that names its task, status or result twice or in
// two cases is withheld.
const taskAmbiguous = "The mcpvalidate proxy withheld this task's result: the task's state names its task, status or result twice or in two cases, " +
	"so the client might read another result than one the proxy could check."

// withMember returns the object obj with its members named name (as spelled) replaced by
// one of the value v.
func withMember(obj []byte, name string, v []byte) []byte {
	kept := [][]byte{append(append(appendString(nil, name), ':'), v...)}
	members(obj, func(n string, value []byte) {
		if !strings.EqualFold(n, name) {
			kept = append(kept, append(append(appendString(nil, n), ':'), value...))
		}
	})
	return append(append([]byte{'{'}, bytes.Join(kept, []byte{','})...), '}')
}

// taskStatus takes a task's status, from notifications/tasks/status or the answer to
// tasks/get or tasks/cancel: a cancelled task has no result to check.
func (s *session) taskStatus(task []byte) {
	if status, _ := stringValue(member(task, "status")); status != "cancelled" {
		return
	}
	if key := taskKey(member(task, "taskId")); key != "" {
		s.forgetTask(key)
	}
}
