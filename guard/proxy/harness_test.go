package proxy

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

// A harness runs Serve between a scripted client and a scripted server, over pipes: the
// test writes what each side sends and reads what each side gets, byte for byte.
type harness struct {
	t          testing.TB
	p          *Proxy
	clientSend *io.PipeWriter
	clientGot  *bufio.Reader
	serverGot  *bufio.Reader
	serverSend *io.PipeWriter
	done       chan error
}

func newHarness(t testing.TB, opts Options) *harness {
	t.Helper()
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	cr, cw := io.Pipe() // client -> proxy
	or, ow := io.Pipe() // proxy -> client
	sr, sw := io.Pipe() // proxy -> server
	rr, rw := io.Pipe() // server -> proxy
	h := &harness{t: t, p: p, clientSend: cw, clientGot: bufio.NewReader(or), serverGot: bufio.NewReader(sr),
		serverSend: rw, done: make(chan error, 1)}
	go func() {
		err := p.Serve(cr, ow, sw, rr)
		ow.Close()
		h.done <- err
	}()
	t.Cleanup(func() {
		cw.Close()
		rw.Close()
		go io.Copy(io.Discard, h.clientGot)
		go io.Copy(io.Discard, h.serverGot)
		if err := <-h.done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return h
}

// client sends line (a newline is added unless it has one).
func (h *harness) client(line string) { h.t.Helper(); h.send(h.clientSend, line) }

// server sends line.
func (h *harness) server(line string) { h.t.Helper(); h.send(h.serverSend, line) }

func (h *harness) send(w io.Writer, line string) {
	h.t.Helper()
	if !strings.HasSuffix(line, "\n") {
		line += "\n"
	}
	if _, err := io.WriteString(w, line); err != nil {
		h.t.Fatalf("sending %.80q: %v", line, err)
	}
}

// clientGets returns the next line the client gets, without its newline.
func (h *harness) clientGets() string { h.t.Helper(); return h.read(h.clientGot) }

// serverGets returns the next line the server gets, without its newline.
func (h *harness) serverGets() string { h.t.Helper(); return h.read(h.serverGot) }

func (h *harness) read(r *bufio.Reader) string {
	h.t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		h.t.Fatalf("reading: %v (got %.80q)", err, line)
	}
	return strings.TrimSuffix(line, "\n")
}

// passes sends line from the client and checks that the server gets it unchanged.
func (h *harness) clientPasses(line string) {
	h.t.Helper()
	h.client(line)
	if got := h.serverGets(); got != strings.TrimSuffix(line, "\n") {
		h.t.Fatalf("the server got\n%.300s\nwant\n%.300s", got, line)
	}
}

// serverPasses sends line from the server and checks that the client gets it unchanged.
func (h *harness) serverPasses(line string) {
	h.t.Helper()
	h.server(line)
	if got := h.clientGets(); got != strings.TrimSuffix(line, "\n") {
		h.t.Fatalf("the client got\n%.300s\nwant\n%.300s", got, line)
	}
}

const weatherSchema = `{"type":"object","properties":{"location":{"type":"string","minLength":1},` +
	`"days":{"type":"integer","minimum":1,"maximum":7},"units":{"enum":["c","f"]}},` +
	`"required":["location"],"additionalProperties":false}`

// toolsList is a tools/list result: weather, a tool whose schema does not compile, and a
// tool with an outputSchema.
const toolsList = `{"tools":[{"name":"weather","inputSchema":` + weatherSchema + `},` +
	`{"name":"broken","inputSchema":{"type":"object","properties":{"x":{"type":"nonsense"}}}},` +
	`{"name":"sum","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}]}`

// listed has the client list the tools through h.
func (h *harness) listed() {
	h.t.Helper()
	h.clientPasses(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	h.serverPasses(`{"jsonrpc":"2.0","id":1,"result":` + toolsList + `}`)
}
