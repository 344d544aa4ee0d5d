package proxy

import (
	"bytes"
	"crypto/sha256"
)

// This file checks a task's result (MCP 2025-11-25) under Options.Output: a
// task-augmented tools/call is answered with a task, and its CallToolResult comes later,
// as the answer to the client's tasks/result. The session remembers which tool each task
// runs, from the server's answer to the call, and checks that answer against it.

// maxTasks bounds the tasks a session remembers: past it, the oldest is forgotten, and
// its result passes unchecked.
const maxTasks = 1024

// maxTaskKey is the length past which a taskId is remembered by its SHA-256, so that what
// a task costs does not grow with its id.
const maxTaskKey = 64

// A taskTool is the tool a task runs, as the call that made it was checked.
type taskTool struct {
	name string
	tool *tool
}

// tasks are a session's tasks whose results are to be checked, by task key, in the
// order they were made. The session's mu guards them.
type tasks struct {
	tools map[string]taskTool
	order []string // keys, oldest first; some may be forgotten already
}

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

// remember records that the task key runs tool t of name; the session's mu is held.
func (ts *tasks) remember(key, name string, t *tool) {
	if ts.tools == nil {
		ts.tools = map[string]taskTool{}
	}
	if _, known := ts.tools[key]; !known {
		for len(ts.tools) >= maxTasks {
			oldest := ts.order[0]
			ts.order = ts.order[1:]
			delete(ts.tools, oldest)
		}
		if len(ts.order) >= 2*maxTasks { // drop the keys of tasks forgotten already
			kept := make([]string, 0, len(ts.tools)+1)
			for _, k := range ts.order {
				if _, ok := ts.tools[k]; ok {
					kept = append(kept, k)
				}
			}
			ts.order = kept
		}
		ts.order = append(ts.order, key)
	}
	ts.tools[key] = taskTool{name, t}
}

func (s *session) rememberTask(key, name string, t *tool) {
	s.mu.Lock()
	s.tasks.remember(key, name, t)
	s.mu.Unlock()
}

func (s *session) forgetTask(key string) {
	s.mu.Lock()
	delete(s.tasks.tools, key)
	s.mu.Unlock()
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

// taskMade takes the task of the server's answer to a task-augmented call of q.tool (a
// CreateTaskResult): the task whose result is to be checked.
func (p *Proxy) taskMade(s *session, q *pending, task []byte) {
	if !p.checksResults(q.tool) {
		return
	}
	if key := taskKey(member(task, "taskId")); key != "" {
		s.rememberTask(key, q.name, q.tool)
	}
}

// taskResult checks the server's answer to tasks/result for the task q.task, and returns
// the answer that replaces it, or nil. A result that is a task's status (a task not
// done, in a server that answers so) rather than a CallToolResult passes, and the task
// stays remembered. A result checked stays remembered too: fetched again, it is checked
// again.
func (p *Proxy) taskResult(s *session, q *pending, id, result []byte) []byte {
	tt, ok := s.taskTool(q.taskKey)
	if !ok || q.taskKey == "" || member(result, "task") != nil || member(result, "status") != nil {
		return nil
	}
	return p.checkResult(s, tt.tool, tt.name, nil, id, result)
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
