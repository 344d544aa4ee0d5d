package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// taskCall is a task-augmented call of sum, the tool with an outputSchema, under id.
func taskCall(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"sum","arguments":{},"task":{"ttl":60000}}}`
}

// taskCreated answers the request id with a CreateTaskResult for the task taskID (raw JSON).
func taskCreated(id, taskID string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"task":{"taskId":` + taskID + `,"status":"working",` +
		`"createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000,"pollInterval":500}}}`
}

// taskFetch is the client's tasks/result for the task taskID (raw JSON), under id.
func taskFetch(id, taskID string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tasks/result","params":{"taskId":` + taskID + `}}`
}

// taskPayload answers the request id with sum's result of structuredContent n.
func taskPayload(id, n string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[],"structuredContent":{"n":` + n + `},` +
		`"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}}}`
}

// resultRefused reports whether line is the refusal of a result, answering id.
func resultRefused(line, id string) bool {
	return strings.HasPrefix(line, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"The tool failed on the server's side`) &&
		strings.Contains(line, `"of":"result"`)
}

// unknownTaskWithheld reports whether line withholds, answering id, the result of a task
// the session does not know.
func unknownTaskWithheld(line, id string) bool {
	return line == `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"`+unknownTask+`"}],"isError":true}}`
}

// A taskStep is one message of a scripted exchange: the client's, which reaches the
// server unchanged, or the server's, which reaches the client unchanged unless refused.
type taskStep struct {
	from    byte // 'c' or 's'
	line    string
	refused bool // the client gets the refusal of a result instead
}

// runTaskScript runs script through a proxy of opts whose session has listed its tools.
func runTaskScript(t *testing.T, opts Options, script []taskStep) {
	h := newHarness(t, opts)
	h.listed()
	for _, st := range script {
		switch {
		case st.from == 'c':
			h.clientPasses(st.line)
		case st.refused:
			h.server(st.line)
			id := st.line[len(`{"jsonrpc":"2.0","id":`):strings.Index(st.line, `,"result"`)]
			if got := h.clientGets(); !resultRefused(got, id) {
				t.Fatalf("the client got %s, want the refusal of %s", got, st.line)
			}
		default:
			h.serverPasses(st.line)
		}
	}
}

// TestTaskResults checks a task's result, fetched with tasks/result, against the
// outputSchema of the tool whose call made the task, under Options.Output; everything
// else of tasks passes unchanged.
func TestTaskResults(t *testing.T) {
	status := func(taskID, s string) string {
		return `{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":` + taskID + `,"status":"` + s + `",` +
			`"createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:31:00Z","ttl":60000}}`
	}
	for _, tc := range []struct {
		name   string
		opts   Options
		script []taskStep
	}{
		{"a valid result passes", Options{Output: true}, []taskStep{
			{'c', taskCall("2"), false}, {'s', taskCreated("2", `"t1"`), false},
			{'s', status(`"t1"`, "working"), false}, {'s', status(`"t1"`, "completed"), false},
			{'c', taskFetch("3", `"t1"`), false}, {'s', taskPayload("3", "1"), false},
		}},
		{"an invalid result is refused, fetched again too", Options{Output: true}, []taskStep{
			{'c', taskCall("2"), false}, {'s', taskCreated("2", `"t1"`), false},
			{'c', `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"t1"}}`, false},
			{'s', `{"jsonrpc":"2.0","id":3,"result":{"taskId":"t1","status":"completed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:31:00Z","ttl":60000}}`, false},
			{'c', taskFetch(`"r"`, `"t1"`), false}, {'s', taskPayload(`"r"`, `"one"`), true},
			{'c', taskFetch("5", `"t1"`), false}, {'s', taskPayload("5", `"one"`), true},
		}},
		{"unchecked without Output", Options{}, []taskStep{
			{'c', taskCall("2"), false}, {'s', taskCreated("2", `"t1"`), false},
			{'c', taskFetch("3", `"t1"`), false}, {'s', taskPayload("3", `"one"`), false},
		}},
		{"isError, an error and a status pass", Options{Output: true}, []taskStep{
			{'c', taskCall("2"), false}, {'s', taskCreated("2", `"t1"`), false},
			{'c', taskFetch("3", `"t1"`), false}, {'s', `{"jsonrpc":"2.0","id":3,"result":{"content":[],"isError":true}}`, false},
			{'c', taskFetch("4", `"t1"`), false}, {'s', `{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"the tool broke"}}`, false},
			{'c', taskFetch("5", `"t1"`), false},
			{'s', `{"jsonrpc":"2.0","id":5,"result":{"taskId":"t1","status":"input_required","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:31:00Z","ttl":60000}}`, false},
			{'c', taskFetch("6", `"t1"`), false}, {'s', taskPayload("6", `"one"`), true},
		}},
		{"tasks of one call are told apart", Options{Output: true}, []taskStep{
			{'c', taskCall("2"), false}, {'s', taskCreated("2", `"t1"`), false},
			{'c', `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"weather","arguments":{"location":"x"},"task":{}}}`, false},
			{'s', taskCreated("3", `"t2"`), false},
			{'c', taskFetch("4", `"t2"`), false}, {'s', taskPayload("4", `"one"`), false}, // weather has no outputSchema
			{'c', taskFetch("5", `"t1"`), false}, {'s', taskPayload("5", `"one"`), true},
			{'c', taskFetch("6", `"t\u0031"`), false}, {'s', taskPayload("6", `"one"`), true},
		}},
		{"a cancelled task is forgotten", Options{Output: true}, []taskStep{
			{'c', taskCall("2"), false}, {'s', taskCreated("2", `"t1"`), false},
			{'c', taskCall("3"), false}, {'s', taskCreated("3", `"t2"`), false},
			{'s', status(`"t1"`, "cancelled"), false},
			{'c', `{"jsonrpc":"2.0","id":4,"method":"tasks/cancel","params":{"taskId":"t2"}}`, false},
			{'s', `{"jsonrpc":"2.0","id":4,"result":{"taskId":"t2","status":"cancelled","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:31:00Z","ttl":60000}}`, false},
			{'c', `{"jsonrpc":"2.0","method":"notifications/marker"}`, false},
		}},
		{"a result with a status or a task member is a result", Options{Output: true}, []taskStep{
			{'c', taskCall("2"), false}, {'s', taskCreated("2", `"t1"`), false},
			{'c', taskFetch("3", `"t1"`), false},
			{'s', `{"jsonrpc":"2.0","id":3,"result":{"status":"completed","content":[],"structuredContent":{"n":"one"}}}`, true},
			{'c', taskFetch("4", `"t1"`), false},
			{'s', `{"jsonrpc":"2.0","id":4,"result":{"task":{"taskId":"t1","status":"completed"},"structuredContent":{"n":"one"}}}`, true},
		}},
		{"a task holding content is a result", Options{Output: true}, []taskStep{
			{'c', taskCall("2"), false},
			{'s', `{"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"t1","status":"working"},"resultType":"complete","content":[],"structuredContent":{"n":"one"}}}`, true},
		}},
		{"a server that runs the call at once", Options{Output: true}, []taskStep{
			{'c', taskCall("2"), false}, {'s', taskPayload("2", `"one"`), true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { runTaskScript(t, tc.opts, tc.script) })
	}
}

// TestUnknownTaskResult: under Options.Output, the result of a task the session does not
// know (another session's, one cancelled and forgotten, one made through another proxy)
// holding structuredContent cannot be checked against the tool that made the task, and is
// withheld; an isError result, one without structuredContent, and any result of a
// session whose whole list declares no outputSchema pass.
func TestUnknownTaskResult(t *testing.T) {
	withheld := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"` + unknownTask + `"}],"isError":true}}`
	}
	h := newHarness(t, Options{Output: true})
	h.listed()
	h.clientPasses(taskCall("2"))
	h.serverPasses(taskCreated("2", `"t1"`))
	h.clientPasses(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}}`)
	h.serverPasses(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t1","status":"cancelled"}}`)
	for _, id := range []string{`"unknown"`, `"t1"`} {
		h.clientPasses(taskFetch("3", id))
		h.server(taskPayload("3", "1"))
		if got := h.clientGets(); got != withheld("3") {
			t.Fatalf("task %s: the client got %s", id, got)
		}
	}
	h.clientPasses(taskFetch("4", `"unknown"`))
	h.serverPasses(`{"jsonrpc":"2.0","id":4,"result":{"content":[],"isError":true}}`)
	h.clientPasses(taskFetch("5", `"unknown"`))
	h.serverPasses(`{"jsonrpc":"2.0","id":5,"result":{"content":[]}}`)

	none := newHarness(t, Options{Output: true})
	none.clientPasses(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	none.serverPasses(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"weather","inputSchema":{"type":"object"}}]}}`)
	none.clientPasses(taskFetch("2", `"unknown"`))
	none.serverPasses(taskPayload("2", `"one"`))
}

// TestTaskIDGivenTwice: a task id the server gives to calls of two tools (twice, or two
// ids that are one to the proxy and two to a client, lone surrogates that both read as
// U+FFFD) makes the result of either unknown to check: under Options.Output it is
// withheld, never checked against the other tool's outputSchema. The same id given to two
// calls of one tool, or again once its first task was delivered, is checked as any other.
func TestTaskIDGivenTwice(t *testing.T) {
	const list = `{"tools":[{"name":"sum","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}},` +
		`{"name":"free","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}]}`
	free := func(id string) string { return strings.Replace(taskCall(id), `"sum"`, `"free"`, 1) }
	for _, c := range []struct {
		name     string
		ids      [2]string
		second   func(string) string
		withheld bool
	}{
		{"lone surrogates", [2]string{`"t\ud800"`, `"t\udc00"`}, free, true},
		{"one id twice", [2]string{`"T"`, `"T"`}, free, true},
		{"one id, one tool", [2]string{`"T"`, `"T"`}, taskCall, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, Options{Output: true})
			h.clientPasses(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			h.serverPasses(`{"jsonrpc":"2.0","id":1,"result":` + list + `}`)
			h.clientPasses(taskCall("2"))
			h.serverPasses(taskCreated("2", c.ids[0]))
			h.clientPasses(c.second("3"))
			h.serverPasses(taskCreated("3", c.ids[1]))
			h.clientPasses(taskFetch("4", c.ids[0]))
			h.server(taskPayload("4", `"not an integer"`))
			got := h.clientGets()
			if withheld := strings.Contains(got, "gave this task's id to calls of two tools"); withheld != c.withheld || !c.withheld && !resultRefused(got, "4") {
				t.Errorf("got %s", got)
			}
		})
	}
	t.Run("again once delivered", func(t *testing.T) {
		h := newHarness(t, Options{Output: true})
		h.clientPasses(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		h.serverPasses(`{"jsonrpc":"2.0","id":1,"result":` + list + `}`)
		h.clientPasses(taskCall("2"))
		h.serverPasses(taskCreated("2", `"T"`))
		h.clientPasses(taskFetch("3", `"T"`))
		h.serverPasses(taskPayload("3", "1"))
		h.clientPasses(free("4"))
		h.serverPasses(taskCreated("4", `"T"`))
		h.clientPasses(taskFetch("5", `"T"`))
		h.serverPasses(taskPayload("5", `"free takes any object"`))
	})
}

// TestTaskResultInBatch refuses the invalid result of a task among a batch's answers.
func TestTaskResultInBatch(t *testing.T) {
	h := newHarness(t, Options{Output: true})
	h.listed()
	h.clientPasses(taskCall("2"))
	h.serverPasses(taskCreated("2", `"t1"`))
	h.clientPasses(`[` + taskFetch("3", `"t1"`) + `,{"jsonrpc":"2.0","id":4,"method":"ping"}]`)
	h.server(`[` + taskPayload("3", `"one"`) + `,{"jsonrpc":"2.0","id":4,"result":{}}]`)
	got := h.clientGets()
	if !strings.HasPrefix(got, `[`) || !resultRefused(got[1:], "3") || !strings.HasSuffix(got, `,{"jsonrpc":"2.0","id":4,"result":{}}]`) {
		t.Fatalf("the client got %s", got)
	}
}

// tasksFixture drives a session's tasks directly, under Options.Output.
type tasksFixture struct {
	t *testing.T
	p *Proxy
	s *session
}

func newTasksFixture(t *testing.T, opts Options) *tasksFixture {
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s := newSession("")
	s.kept = true
	s.learn(p, []byte(toolsList), true, 0)
	return &tasksFixture{t, p, s}
}

// call sends a task-augmented call of sum under id, and returns the proxy's answer to it,
// nil when it went on to the server.
func (f *tasksFixture) call(id string) []byte {
	f.t.Helper()
	forward, answer := f.p.fromClient(exchange{s: f.s}, []byte(taskCall(id)), nil)
	if (forward == nil) == (answer == nil) {
		f.t.Fatalf("the call %s was forwarded as %.80s and answered %.80s", id, forward, answer)
	}
	return answer
}

// create has a task-augmented call of sum make the task taskID (raw JSON).
func (f *tasksFixture) create(id, taskID string) {
	f.t.Helper()
	if answer := f.call(id); answer != nil {
		f.t.Fatalf("the call %s was answered %.200s", id, answer)
	}
	line := []byte(taskCreated(id, taskID))
	if out := f.p.fromServer(exchange{s: f.s}, line); !sameBytes(out, line) {
		f.t.Fatalf("the task %.40s was not passed on", taskID)
	}
}

// fetch has the client fetch the task taskID's result, an invalid one, and reports
// whether the proxy refused it.
func (f *tasksFixture) fetch(id, taskID string) bool {
	f.t.Helper()
	f.p.fromClient(exchange{s: f.s}, []byte(taskFetch(id, taskID)), nil)
	return resultRefused(string(f.p.fromServer(exchange{s: f.s}, []byte(taskPayload(id, `"one"`)))), id)
}

// cancelled has the server say the task taskID was cancelled.
func (f *tasksFixture) cancelled(taskID string) {
	f.p.fromServer(exchange{s: f.s}, []byte(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":`+taskID+`,"status":"cancelled"}}`))
}

// tooMany reports whether answer is the proxy's refusal of a task-augmented call for want
// of task slots.
func tooMany(answer []byte, id string) bool {
	return strings.HasPrefix(string(answer), `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32602,"message":"Too many tasks await their results`)
}

func task(i int) string { return `"task-` + strconv.Itoa(i) + `"` }

// TestTasksAreBounded: a session keeps at most maxTasks tasks; a task whose result was
// never checked and sent is never forgotten for room: past maxTasks of them (calls in
// flight included), a task-augmented call of a tool whose results are checked is refused
// by the proxy. Delivered tasks go first, the earliest first; a cancelled task frees its
// slot; a taskId of a megabyte costs what a short one does.
func TestTasksAreBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	f := newTasksFixture(t, Options{Output: true})
	for i := range maxTasks - 1 {
		f.create(strconv.Itoa(i), task(i))
	}
	if f.call(`"in-flight"`) != nil {
		t.Fatalf("the last slot was not given: %d undelivered, %d calls", f.s.tasks.undelivered, f.s.tasks.calls)
	}
	if answer := f.call(`"over"`); !tooMany(answer, `"over"`) {
		t.Fatalf("a call past the bound (one in flight) was answered %.200s", answer)
	}
	f.p.fromServer(exchange{s: f.s}, []byte(taskCreated(`"in-flight"`, task(maxTasks-1))))
	if answer := f.call(`"over"`); !tooMany(answer, `"over"`) {
		t.Fatalf("a call past the bound was answered %.200s", answer)
	}
	// A tool whose results are not checked takes no slot, nor a call that is not a task.
	if forward, _ := f.p.fromClient(exchange{s: f.s}, []byte(`{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"weather","arguments":{"location":"x"},"task":{}}}`), nil); forward == nil {
		t.Fatal("a task-augmented call of a tool without outputSchema was refused")
	}
	if forward, _ := f.p.fromClient(exchange{s: f.s}, []byte(`{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"sum","arguments":{}}}`), nil); forward == nil {
		t.Fatal("a call that is not a task was refused")
	}
	// Every task kept is still checked; a delivered one makes room.
	if !f.fetch(`"f0"`, task(0)) || !f.fetch(`"f1"`, task(maxTasks-1)) {
		t.Fatal("the result of a task kept was not checked")
	}
	f.create(`"new"`, `"new"`)
	if f.fetch(`"f2"`, task(0)) || !f.fetch(`"f3"`, task(maxTasks-1)) || !f.fetch(`"f4"`, task(maxTasks-1)) {
		t.Fatal("the earliest delivered task was not the one forgotten for room")
	}
	f.create(`"new2"`, `"new2"`)
	if answer := f.call(`"over"`); !tooMany(answer, `"over"`) {
		t.Fatalf("a call past the bound was answered %.200s", answer)
	}
	// A cancelled task frees its slot, and so does a call answered otherwise than with a
	// task, or cancelled.
	f.cancelled(task(2))
	for _, answer := range []string{
		`{"jsonrpc":"2.0","id":"c","result":{"content":[],"structuredContent":{"n":1}}}`,
		`{"jsonrpc":"2.0","id":"c","error":{"code":-32603,"message":"no"}}`,
	} {
		if f.call(`"c"`) != nil {
			t.Fatal("a cancelled task did not free its slot")
		}
		f.p.fromServer(exchange{s: f.s}, []byte(answer))
	}
	f.call(`"c"`)
	f.p.fromClient(exchange{s: f.s}, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c"}}`), nil)
	f.create(`"c"`, `"c"`)
	if !tooMany(f.call(`"over"`), `"over"`) || len(f.s.tasks.tools) != maxTasks || f.s.tasks.calls != 0 {
		t.Fatalf("%d tasks kept, %d calls in flight", len(f.s.tasks.tools), f.s.tasks.calls)
	}
	// Tasks made and delivered without end: the session keeps maxTasks, its record of
	// deliveries at most twice that.
	for i := range maxTasks {
		f.fetch(`"d`+strconv.Itoa(i)+`"`, task(i))
	}
	f.fetch(`"dn"`, `"new"`)
	f.fetch(`"dn"`, `"new2"`)
	f.fetch(`"dc"`, `"c"`)
	const n = 50000
	for i := range n {
		id := `"more-` + strconv.Itoa(i) + `"`
		f.create(strconv.Itoa(i), id)
		if !f.fetch(strconv.Itoa(i), id) {
			t.Fatalf("the result of task %s was not checked", id)
		}
	}
	if len(f.s.tasks.tools) != maxTasks || len(f.s.tasks.delivered) > 2*maxTasks || f.s.tasks.undelivered != 0 {
		t.Fatalf("%d tasks kept, %d deliveries recorded, %d undelivered", len(f.s.tasks.tools), len(f.s.tasks.delivered), f.s.tasks.undelivered)
	}
	if !f.fetch("-1", `"more-`+strconv.Itoa(n-maxTasks)+`"`) || f.fetch("-2", `"more-`+strconv.Itoa(n-maxTasks-1)+`"`) {
		t.Fatal("not the latest delivered tasks were kept")
	}
	// Huge ids: each costs a key of a few dozen bytes, however long.
	huge := func(i int) string { return `"` + strconv.Itoa(i) + strings.Repeat("x", 1<<20) + `"` }
	for i := range 8 {
		f.create(strconv.Itoa(i), huge(i))
	}
	for k := range f.s.tasks.tools {
		if len(k) > maxTaskKey+1 {
			t.Fatalf("a task key of %d bytes", len(k))
		}
	}
	if !f.fetch("-5", huge(7)) || !f.fetch("-6", huge(0)) || f.fetch("-7", huge(8)) {
		t.Fatal("the results of tasks of huge ids were not told apart")
	}
	line := []byte(taskCreated("9", huge(9)))
	allocated := allocatedBy(func() {
		f.p.fromClient(exchange{s: f.s}, []byte(taskCall("9")), nil)
		f.p.fromServer(exchange{s: f.s}, line)
	}, 10)
	if allocated > 64<<10 {
		t.Errorf("remembering a task of a 1 MB id allocates %d bytes", allocated)
	}
}

// TestTooManyTasks: past maxTasks tasks whose results await their check, a
// task-augmented call is answered by the proxy, in the form refusals of task-augmented
// calls take, and never reaches the server.
func TestTooManyTasks(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		meta string // of the call past the bound
		want string
	}{
		{"before 2026-07-28", Options{Output: true}, ``, `{"jsonrpc":"2.0","id":"over","error":{"code":-32602,"message":"Too many tasks await their results in this MCP session`},
		{"2026-07-28", Options{Output: true}, `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},`,
			`{"jsonrpc":"2.0","id":"over","result":{"resultType":"complete","content":[{"type":"text","text":"Too many tasks await their results in this MCP session`},
		{"error", Options{Output: true, RefuseAsError: true}, `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},`,
			`{"jsonrpc":"2.0","id":"over","error":{"code":-32602,"message":"Too many tasks await their results in this MCP session`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.opts)
			h.listed()
			for i := range maxTasks {
				h.clientPasses(taskCall(strconv.Itoa(i + 2)))
				h.serverPasses(taskCreated(strconv.Itoa(i+2), task(i)))
			}
			h.client(strings.Replace(taskCall(`"over"`), `"params":{`, `"params":{`+tc.meta, 1))
			if got := h.clientGets(); !strings.HasPrefix(got, tc.want) {
				t.Fatalf("the client got %.300s", got)
			}
			h.clientPasses(`{"jsonrpc":"2.0","id":"after","method":"ping"}`) // the server got nothing before it
			h.clientPasses(taskFetch(`"f"`, task(0)))
			h.server(taskPayload(`"f"`, `"one"`))
			if got := h.clientGets(); !resultRefused(got, `"f"`) {
				t.Fatalf("the client got %.300s", got)
			}
			h.clientPasses(taskCall(`"next"`)) // the delivered task made room
		})
	}
}

// TestHTTPTaskResult checks a task's result over streamable HTTP, as JSON and as an SSE
// event, in the MCP session that made the task.
func TestHTTPTaskResult(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set(sessionHeader, r.Header.Get(sessionHeader))
		if start := r.URL.Query().Get("start"); start != "" { // an initialize starts the session named
			w.Header().Set(sessionHeader, start)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":0,"result":{}}`)
			return
		}
		switch b := string(body); {
		case strings.Contains(b, `"tools/list"`):
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":`+toolsList+`}`)
		case strings.Contains(b, `"tools/call"`):
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, taskCreated("2", `"t-`+r.Header.Get(sessionHeader)+`"`))
		case strings.Contains(b, `"id":3`):
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: message\ndata: "+`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t-a","status":"completed"}}`+"\n\n")
			io.WriteString(w, "id: 9\nevent: message\ndata: "+taskPayload("3", `"one"`)+"\n\n")
		default:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, taskPayload("4", `"one"`))
		}
	}))
	defer upstream.Close()
	endpoint := startFront(t, upstream.URL+"/mcp", Options{Output: true})
	post := func(session, body string) string {
		t.Helper()
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(body))
		req.Header.Set(sessionHeader, session)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	for _, session := range []string{"a", "b"} {
		resp, err := http.Post(endpoint+"?start="+session, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		post(session, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		if got := post(session, taskCall("2")); got != taskCreated("2", `"t-`+session+`"`) {
			t.Fatalf("the task was answered %s", got)
		}
	}
	got := post("a", taskFetch("3", `"t-a"`))
	const status = "event: message\ndata: " + `{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t-a","status":"completed"}}` + "\n\n"
	if !strings.HasPrefix(got, status+"id: 9\nevent: message\ndata: ") || !resultRefused(strings.TrimPrefix(got, status+"id: 9\nevent: message\ndata: "), "3") {
		t.Fatalf("the SSE answer to tasks/result: %q", got)
	}
	if got := post("b", taskFetch("4", `"t-b"`)); !resultRefused(got, "4") {
		t.Fatalf("the JSON answer to tasks/result: %s", got)
	}
	// Session a's task is not session b's: b cannot check its result, and withholds it.
	if got := post("b", taskFetch("4", `"t-a"`)); !unknownTaskWithheld(got, "4") {
		t.Fatalf("another session's task: %s", got)
	}
}

// TestTasksExtension: in the tasks extension (protocol 2026-07-28) a server answers a
// tools/call with a task of its own accord ({"resultType":"task","taskId":...}), which
// passes as it is; the call's result comes in the task's state, in the answer to
// tasks/get or in notifications/tasks, once completed: checked against the tool's
// outputSchema under Output, and withheld in the state when it breaks it, or when its task
// is unknown or named ambiguously.
func TestTasksExtension(t *testing.T) {
	const v = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	const made = `{"jsonrpc":"2.0","id":2,"result":{"resultType":"task","taskId":"T1","status":"working","ttlMs":60000,"pollIntervalMs":10}}`
	state := func(id, task, result string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"complete","taskId":"` + task + `","status":"completed","ttlMs":60000,"result":` + result + `}}`
	}
	const good, bad = `{"content":[],"structuredContent":{"n":1}}`, `{"content":[],"structuredContent":{"n":"bad"}}`
	h := newHarness(t, Options{Output: true})
	h.listed()
	h.clientPasses(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sum","arguments":{},` + v + `}}`)
	h.serverPasses(made)
	h.clientPasses(`{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"T1",` + v + `}}`)
	h.serverPasses(`{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","taskId":"T1","status":"working","ttlMs":60000}}`)
	for i, c := range []struct {
		task, result string
		passes       bool
	}{
		{"T1", good, true},
		{"T1", bad, false},
		{"T2", good, false}, // a task the proxy never saw made
	} {
		id := strconv.Itoa(4 + i)
		h.clientPasses(`{"jsonrpc":"2.0","id":` + id + `,"method":"tasks/get","params":{"taskId":"` + c.task + `",` + v + `}}`)
		answer := state(id, c.task, c.result)
		h.server(answer)
		got := h.clientGets()
		if (got == answer) != c.passes || !c.passes && (!strings.Contains(got, `"isError":true`) || !strings.Contains(got, `"taskId":"`+c.task+`"`)) {
			t.Errorf("tasks/get of %s, result %s: the client got\n%s", c.task, c.result, got)
		}
	}
	for _, c := range []struct {
		note   string
		passes bool
	}{
		{`{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"T1","status":"completed","result":` + good + `}}`, true},
		{`{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"T1","status":"completed","result":` + bad + `}}`, false},
		{`{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"T1","status":"completed","result":` + good + `,"Result":` + bad + `}}`, false},
		{`{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"T1","status":"working"}}`, true},
	} {
		h.server(c.note)
		if got := h.clientGets(); (got == c.note) != c.passes || strings.Contains(got, `"bad"`) {
			t.Errorf("%s: the client got\n%s", c.note, got)
		}
	}
}

// TestInputRequiredPasses: from 2026-07-28 a server may answer a tools/call with input
// asked for ({"resultType":"input_required", ...}): not the call's result, which passes
// under Output as it is; the client answers and calls again.
func TestInputRequiredPasses(t *testing.T) {
	h := newHarness(t, Options{Output: true})
	h.listed()
	h.clientPasses(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sum","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	h.serverPasses(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"who":{"method":"elicitation/create",` +
		`"params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}},"requestState":"s1"}}`)
	// The member's name escaped is read as it is.
	h.clientPasses(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sum","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	h.serverPasses(`{"jsonrpc":"2.0","id":4,"result":{"result\u0054ype":"input_required","inputRequests":{},"requestState":"s2"}}`)
	// One that carries a result too is read as one by clients, and checked.
	h.clientPasses(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sum","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	h.server(`{"jsonrpc":"2.0","id":3,"result":{"resultType":"input_required","inputRequests":{},"content":[],"structuredContent":{"n":"bad"}}}`)
	if got := h.clientGets(); strings.Contains(got, `"bad"`) {
		t.Errorf("the client got %s", got)
	}
}
