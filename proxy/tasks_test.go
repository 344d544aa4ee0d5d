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

// A taskStep is one message of a scripted exchange: the client's, which reaches the
// server unchanged, or the server's, which reaches the client unchanged unless refused.
type taskStep struct {
	from    byte // 'c' or 's'
	line    string
	refused bool // the client gets the refusal of a result instead
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
			{'c', taskFetch("7", `"unknown"`), false}, {'s', taskPayload("7", `"one"`), false},
			{'c', taskFetch("8", `1`), false}, {'s', taskPayload("8", `"one"`), false},
		}},
		{"a cancelled task is forgotten", Options{Output: true}, []taskStep{
			{'c', taskCall("2"), false}, {'s', taskCreated("2", `"t1"`), false},
			{'c', taskCall("3"), false}, {'s', taskCreated("3", `"t2"`), false},
			{'s', status(`"t1"`, "cancelled"), false},
			{'c', `{"jsonrpc":"2.0","id":4,"method":"tasks/cancel","params":{"taskId":"t2"}}`, false},
			{'s', `{"jsonrpc":"2.0","id":4,"result":{"taskId":"t2","status":"cancelled","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:31:00Z","ttl":60000}}`, false},
			{'c', taskFetch("5", `"t1"`), false}, {'s', taskPayload("5", `"one"`), false},
			{'c', taskFetch("6", `"t2"`), false}, {'s', taskPayload("6", `"one"`), false},
		}},
		{"a server that runs the call at once", Options{Output: true}, []taskStep{
			{'c', taskCall("2"), false}, {'s', taskPayload("2", `"one"`), true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.opts)
			h.listed()
			for _, st := range tc.script {
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
		})
	}
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

// TestTasksAreBounded: however many tasks a server makes, a session remembers at most
// maxTasks, the latest; a taskId of a megabyte costs what a short one does, and its
// result is still checked.
func TestTasksAreBounded(t *testing.T) {
	p, err := New(Options{Output: true})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession("")
	s.learn(p, []byte(toolsList), true, 0)
	create := func(id, taskID string) {
		t.Helper()
		if forward, _ := p.fromClient(s, []byte(taskCall(id)), nil); forward == nil {
			t.Fatal("a valid task-augmented call was not passed on")
		}
		line := []byte(taskCreated(id, taskID))
		if out := p.fromServer(s, line); !sameBytes(out, line) {
			t.Fatalf("the task %.40s was not passed on", taskID)
		}
	}
	refused := func(id, taskID string) bool {
		t.Helper()
		p.fromClient(s, []byte(taskFetch(id, taskID)), nil)
		return resultRefused(string(p.fromServer(s, []byte(taskPayload(id, `"one"`)))), id)
	}
	const n = 50000
	for i := range n {
		create(strconv.Itoa(i), `"task-`+strconv.Itoa(i)+`"`)
	}
	if len(s.tasks.tools) != maxTasks || len(s.tasks.order) > 2*maxTasks {
		t.Fatalf("%d tasks remembered, %d keys in order, want %d and at most %d", len(s.tasks.tools), len(s.tasks.order), maxTasks, 2*maxTasks)
	}
	if !refused("-1", `"task-`+strconv.Itoa(n-1)+`"`) || !refused("-2", `"task-`+strconv.Itoa(n-maxTasks)+`"`) {
		t.Fatal("the result of a task among the latest was not checked")
	}
	if refused("-3", `"task-`+strconv.Itoa(n-maxTasks-1)+`"`) {
		t.Fatal("a task past the bound was remembered")
	}
	// Cancelled tasks go at once (one of the tasks above made room for the first), and
	// their keys with time.
	for i := range n {
		id := `"gone-` + strconv.Itoa(i) + `"`
		create(strconv.Itoa(i), id)
		p.fromServer(s, []byte(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":`+id+`,"status":"cancelled"}}`))
	}
	if len(s.tasks.tools) != maxTasks-1 || len(s.tasks.order) > 2*maxTasks || !refused("-4", `"task-`+strconv.Itoa(n-1)+`"`) {
		t.Fatalf("after cancelled tasks: %d remembered, %d keys in order", len(s.tasks.tools), len(s.tasks.order))
	}
	// Huge ids: each costs a key of a few dozen bytes, however long.
	huge := func(i int) string { return `"` + strconv.Itoa(i) + strings.Repeat("x", 1<<20) + `"` }
	for i := range 8 {
		create(strconv.Itoa(i), huge(i))
	}
	for k := range s.tasks.tools {
		if len(k) > maxTaskKey+1 {
			t.Fatalf("a task key of %d bytes", len(k))
		}
	}
	if !refused("-5", huge(7)) || !refused("-6", huge(0)) || refused("-7", huge(8)) {
		t.Fatal("the results of tasks of huge ids were not told apart")
	}
	line := []byte(taskCreated("9", huge(9)))
	allocated := allocatedBy(func() {
		p.fromClient(s, []byte(taskCall("9")), nil)
		p.fromServer(s, line)
	}, 10)
	if allocated > 64<<10 {
		t.Errorf("remembering a task of a 1 MB id allocates %d bytes", allocated)
	}
}

// TestHTTPTaskResult checks a task's result over streamable HTTP, as JSON and as an SSE
// event, in the MCP session that made the task.
func TestHTTPTaskResult(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set(sessionHeader, r.Header.Get(sessionHeader))
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
	// Session a's task is not session b's.
	if got := post("b", taskFetch("4", `"t-a"`)); got != taskPayload("4", `"one"`) {
		t.Fatalf("another session's task: %s", got)
	}
}
