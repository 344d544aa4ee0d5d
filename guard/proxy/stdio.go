package proxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
)

// This file is the stdio front: newline-delimited JSON-RPC between a client's pipes and
// a server's.

// Serve relays newline-delimited JSON-RPC between a client (clientIn, clientOut) and a
// server (serverIn, serverOut), checking the client's tools/call requests. Every line
// goes on unchanged and in order, but for the refused calls, which the proxy answers
// itself. When clientIn ends, Serve closes serverIn; it returns when serverOut ends,
// after answering each client request still in flight with a JSON-RPC error. It returns
// an error only when the client cannot be written to. A goroutine reading clientIn
// returns when clientIn ends; close it after Serve returns.
func (p *Proxy) Serve(clientIn io.Reader, clientOut io.Writer, serverIn io.WriteCloser, serverOut io.Reader) error {
	c := p.newConn(clientOut, serverIn)
	go c.fromClient(clientIn)
	err := c.fromServer(serverOut)
	c.finish("the MCP server closed its output")
	return err
}

// Run starts cmd, an MCP server over stdio, and relays between it and the client
// (clientIn, clientOut) as [Proxy.Serve] does; cmd.Stderr is left as the caller set it.
// When clientIn ends, the server's stdin is closed, and a server still running 5 seconds
// later is sent SIGTERM, and 5 seconds after that killed. Run returns when the server
// has exited and its output ended, with the server's exit status (128 plus the signal's
// number when a signal ended it); each client request still in flight is answered first
// with a JSON-RPC error saying so. When ctx ends (the proxy itself is told to stop), the
// server is sent SIGTERM at once, and killed 5 seconds later if it still runs.
func (p *Proxy) Run(ctx context.Context, cmd *exec.Cmd, clientIn io.Reader, clientOut io.Writer) (int, error) {
	if cmd.Stdin != nil || cmd.Stdout != nil {
		return 0, errors.New("proxy: Run sets the command's stdin and stdout itself")
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return 0, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return 0, fmt.Errorf("proxy: starting the server: %w", err)
	}
	c := p.newConn(clientOut, inW)
	exited := make(chan struct{})
	go func() {
		in, reopened := pollable(clientIn)
		c.fromClient(in)
		if reopened {
			in.(*os.File).Close()
		}
	}()
	go stopWhenDone(ctx, cmd.Process, c.done, exited)
	relayErr := c.fromServer(outR)
	if relayErr != nil { // the client is gone: so is the reason to run the server
		c.stop()
	}
	waitErr := cmd.Wait()
	close(exited)
	outR.Close()
	status := exitStatus(cmd.ProcessState)
	why := fmt.Sprintf("the MCP server exited with status %d", status)
	c.finish(why)
	switch {
	case p.log == nil || c.gone.Load() != nil:
	case waitErr == nil:
		p.log.Info("mcpvalidate proxy: " + why)
	default:
		p.log.Warn("mcpvalidate proxy: "+why, "error", waitErr)
	}
	return status, relayErr
}

// pollable returns r, or, when r is a pipe (the client's end, as a client starts the
// proxy, os.Stdin), the same pipe opened anew without blocking, so that Go's poller
// reads it: a message then wakes the one thread waiting in epoll for either side, rather
// than a thread blocked in read that must get a P back, and Go's monitor thread can
// sleep while the proxy waits (half the context switches a call). Opened anew, the pipe
// has a file description of its own: the client's, shared with whoever else holds it,
// stays blocking. reopened is false where the pipe cannot be opened anew (not Linux),
// and r is returned as it is.
func pollable(r io.Reader) (_ io.Reader, reopened bool) {
	f, ok := r.(*os.File)
	if !ok {
		return r, false
	}
	if info, err := f.Stat(); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		return r, false
	}
	raw, err := f.SyscallConn()
	if err != nil {
		return r, false
	}
	var again *os.File
	_ = raw.Control(func(fd uintptr) {
		again, err = os.OpenFile("/proc/self/fd/"+strconv.Itoa(int(fd)), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	})
	if err != nil || again == nil {
		return r, false
	}
	return again, true
}

// listTimeout bounds the wait for the server's answer to the proxy's own tools/list,
// during which the client's next messages wait too.
const listTimeout = 30 * time.Second

// stopGrace is how long a server has to exit after its stdin closes, and again after
// SIGTERM, before it is killed.
const stopGrace = 5 * time.Second

func stopWhenDone(ctx context.Context, proc *os.Process, done, exited <-chan struct{}) {
	signals := []os.Signal{syscall.SIGTERM, os.Kill}
	select {
	case <-exited:
		return
	case <-done:
	case <-ctx.Done():
		_ = proc.Signal(syscall.SIGTERM)
		signals = signals[1:]
	}
	for _, sig := range signals {
		t := time.NewTimer(stopGrace)
		select {
		case <-exited:
			t.Stop()
			return
		case <-t.C:
			_ = proc.Signal(sig)
		}
	}
}

func exitStatus(ps *os.ProcessState) int {
	if ps == nil {
		return 1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	if code := ps.ExitCode(); code >= 0 {
		return code
	}
	return 1
}

// A conn is one stdio pair: one MCP session.
type conn struct {
	p *Proxy
	s *session

	// Writes to either side go through a buffer, flushed after each message unless the
	// next message is read already: messages that come together go on in one write.
	cmu     sync.Mutex // orders writes to the client
	client  *bufio.Writer
	smu     sync.Mutex // orders writes to the server
	server  io.WriteCloser
	serverW *bufio.Writer

	busy     sync.Mutex // held while a client's line is decided and sent on
	stopOnce sync.Once
	done     chan struct{} // closed when the client's input ended or the client is gone
	gone     errorValue    // why the client is gone, if it is
}

// An errorValue holds the first error stored in it.
type errorValue struct {
	mu  sync.Mutex
	err error
}

// Load returns the error stored, or nil.
func (e *errorValue) Load() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// Store keeps err unless an error is kept already.
func (e *errorValue) Store(err error) {
	e.mu.Lock()
	if e.err == nil {
		e.err = err
	}
	e.mu.Unlock()
}

func (p *Proxy) newConn(client io.Writer, server io.WriteCloser) *conn {
	s := newSession("")
	s.hearsAll = true
	s.kept = true
	return &conn{p: p, s: s, client: bufio.NewWriterSize(client, 64<<10), server: server,
		serverW: bufio.NewWriterSize(server, 64<<10), done: make(chan struct{})}
}

// stop closes the server's stdin, once.
func (c *conn) stop() {
	c.stopOnce.Do(func() {
		c.smu.Lock()
		_ = c.server.Close()
		c.smu.Unlock()
		close(c.done)
	})
}

// fromClient relays the client's lines until its input ends.
func (c *conn) fromClient(r io.Reader) {
	defer c.stop()
	lines := newLineReader(r, c.p.opts.maxMessage())
	for {
		line, err := lines.next()
		if err == errOverlong {
			if !c.clientOverlong(&lines.over) {
				return
			}
			continue
		}
		if len(line) > 0 && !c.relay(line, lines.hasLine()) {
			return
		}
		if err != nil {
			return
		}
	}
}

// relay decides one line of the client's and sends it on, or keeps it in the buffer when
// more, the next line, is read already; false when the client is gone.
func (c *conn) relay(line []byte, more bool) bool {
	c.busy.Lock()
	defer c.busy.Unlock()
	if ans, skip := unframed(line); skip {
		return true
	} else if ans != nil {
		return c.toClient(ans, false, false) == nil
	}
	forward, answer := c.p.fromClient(exchange{s: c.s}, line, c.fetch)
	if answer != nil && c.toClient(answer, false, false) != nil {
		return false
	}
	_ = c.toServer(forward, sameBytes(forward, line) && lineEnd(line) > 0, more) // a last line may come unended
	return true
}

// unframed returns the proxy's answer to a client's line that is not JSON, which never
// goes on: a server reading a stream of JSON values, not lines, would put a message split
// over lines together, unchecked; skip for a blank line.
func unframed(line []byte) (answer []byte, skip bool) {
	switch {
	case jsontext.SkipSpace(line, 0) == len(line):
		return nil, true
	case !jsontext.Valid(line) || !utf8.Valid(line) || loneCR(line):
		return errorResponse([]byte("null"), -32700, "Parse error: the line is not one JSON message; over stdio each message is a line of its own, so it was not sent on"), false
	}
	return nil, false
}

// loneCR reports whether the line holds a CR other than its line end's: a line end to
// the line readers of Python's, Java's and .NET's SDKs, so that what one JSON value spans
// there is two lines, or more.
func loneCR(line []byte) bool {
	return bytes.IndexByte(line[:len(line)-lineEnd(line)], '\r') >= 0
}

// clientOverlong answers for a client's line over the limit, which was dropped: a
// request (or a message whose id could not be found) with an error, a response to a
// request of the server's with an error to the server; false when the client is gone.
func (c *conn) clientOverlong(o *overlong) bool {
	c.busy.Lock()
	defer c.busy.Unlock()
	limit := c.p.opts.maxMessage()
	c.p.logOverlong("the client", c.s, o, limit)
	switch {
	case o.method && o.id == nil: // a notification
		return true
	case !o.method && o.id != nil:
		_ = c.toServer(errorResponse(o.id, -32603, tooLong("the client's response", o.size, limit)), false, false)
		return true
	}
	id := o.id
	if id == nil {
		id = []byte("null")
	}
	return c.toClient(errorResponse(id, -32600, tooLong("the request", o.size, limit)), false, false) == nil
}

// fromServer relays the server's lines until its output ends: nil at its end, or the
// error writing to the client.
func (c *conn) fromServer(r io.Reader) error {
	lines := newLineReader(r, c.p.opts.maxMessage())
	for {
		line, err := lines.next()
		if err == errOverlong {
			err = nil
			if line = c.p.serverOverlong(c.s, &lines.over, func(b []byte) error { return c.toServer(b, false, false) }); line != nil {
				line = append(line, '\n')
			}
		}
		if len(line) > 0 && c.unreadable(line) {
			line = nil
		}
		if len(line) > 0 {
			out := c.p.fromServer(exchange{s: c.s}, line)
			// A last line may come unended: it is ended, so that the proxy's own answers
			// after it are lines of their own.
			if werr := c.toClient(out, sameBytes(out, line) && lineEnd(line) > 0, lines.hasLine()); werr != nil {
				// Keep reading, so that a server that writes on is not blocked.
				_, _ = io.Copy(io.Discard, r)
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return nil // the server's output is broken: it is as gone as at its end
		}
	}
}

// unreadable reports whether a line of the server's, not blank, is not one JSON value
// on a line of its own, which the client may read otherwise than the proxy (a client
// reading a stream of JSON values, or ending lines at a lone CR), and is dropped
// (Proxy.unreadable).
func (c *conn) unreadable(line []byte) bool {
	if jsontext.SkipSpace(line, 0) == len(line) || jsontext.Valid(line) && !loneCR(line) {
		return false
	}
	return c.p.unreadable(c.s, line)
}

// finish answers the client requests in flight when the server is gone, and waits for
// the client's line being decided, if any, to be answered too.
func (c *conn) finish(why string) {
	for _, a := range c.s.close(why) {
		if c.toClient(a, false, false) != nil {
			break
		}
	}
	c.busy.Lock()
	//lint:ignore SA2001 waiting for the line in progress is the point
	c.busy.Unlock()
}

// fetch is the stdio fetcher: the request is written to the server, and its answer
// comes back among the server's lines.
func (c *conn) fetch(key string, req []byte) ([]byte, error) {
	answer := c.s.await(key)
	if answer == nil {
		return nil, errors.New(c.s.gone())
	}
	if err := c.toServer(req, false, false); err != nil {
		c.s.deliver(key, nil)
		return nil, err
	}
	t := time.NewTimer(listTimeout)
	defer t.Stop()
	select {
	case b, ok := <-answer:
		if !ok || b == nil {
			return nil, errors.New("the MCP server is gone")
		}
		return b, nil
	case <-t.C:
		c.s.deliver(key, nil)
		return nil, errors.New("the MCP server did not answer the proxy's tools/list within " + listTimeout.String())
	}
}

// toClient writes b, a message (nil: none), to the client: whole, ending its line unless
// it is a line already, and flushed with what came before it unless more is to come at
// once.
func (c *conn) toClient(b []byte, isLine, more bool) error {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	if err := c.gone.Load(); err != nil {
		return err
	}
	err := writeLine(c.client, b, isLine, more)
	if err != nil {
		c.gone.Store(err)
		c.stop()
	}
	return err
}

// toServer writes b to the server as toClient writes to the client.
func (c *conn) toServer(b []byte, isLine, more bool) error {
	c.smu.Lock()
	defer c.smu.Unlock()
	return writeLine(c.serverW, b, isLine, more)
}

func writeLine(w *bufio.Writer, b []byte, isLine, more bool) error {
	if b != nil {
		if _, err := w.Write(b); err != nil {
			return err
		}
		if !isLine {
			if err := w.WriteByte('\n'); err != nil {
				return err
			}
		}
	}
	if more {
		return nil
	}
	return w.Flush()
}

// sameBytes reports whether a and b are the same slice.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// A lineReader reads lines of any length. A line is valid until the next call. A long
// line is gathered in blocks and joined once, so that reading it allocates about twice
// its size; a buffer of more than a megabyte is let go after its line, so that memory
// follows the messages in flight.
//
// A line longer than max bytes (its line end aside; 0: no limit) is read to its end
// without being kept: next returns errOverlong, and over says what the line was. On an
// SSE stream (sse), over is the scan of the line's event: of the lines before it, which
// the event's reader sets as before, or, with cont, of the event up to it.
type lineReader struct {
	r      *bufio.Reader
	buf    []byte
	blocks [][]byte
	max    int64
	over   overlong

	sse, cont bool
	before    []byte
}

func newLineReader(r io.Reader, max int64) *lineReader {
	l := newLineReaderSize(r, 64<<10)
	l.max = max
	return l
}

// newLineReaderSize reads r through a buffer of size bytes: 64 KB for a long-lived pipe,
// less for an HTTP answer, whose buffer is made for each.
func newLineReaderSize(r io.Reader, size int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, size)}
}

// hasEvent reports whether the reader holds a whole SSE event already (a blank line
// ends it), which it returns without waiting for more input.
func (l *lineReader) hasEvent() bool {
	b, _ := l.r.Peek(l.r.Buffered())
	return bytes.Contains(b, []byte("\n\n")) || bytes.Contains(b, []byte("\n\r\n"))
}

// hasLine reports whether the reader holds a whole line already, which next returns
// without waiting for more input.
func (l *lineReader) hasLine() bool {
	b, _ := l.r.Peek(l.r.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}

// next returns the next line with its newline (the last line may have none), and
// io.EOF or the read error with the bytes read before it.
func (l *lineReader) next() ([]byte, error) {
	if cap(l.buf) > 1<<20 {
		l.buf = nil
	}
	chunk, err := l.r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		if l.max > 0 && int64(len(chunk)-lineEnd(chunk)) > l.max {
			return l.drop(chunk, err)
		}
		return chunk, err
	}
	size := 0
	l.blocks = l.blocks[:0]
	for err == bufio.ErrBufferFull {
		if l.max > 0 && int64(size+len(chunk)) > l.max+2 { // over, whatever its line end
			return l.drop(chunk, err)
		}
		l.blocks = append(l.blocks, bytes.Clone(chunk))
		size += len(chunk)
		chunk, err = l.r.ReadSlice('\n')
	}
	size += len(chunk)
	if l.max > 0 && int64(size-lineEnd(chunk)) > l.max {
		return l.drop(chunk, err)
	}
	if cap(l.buf) < size {
		l.buf = make([]byte, 0, size)
	}
	l.buf = l.buf[:0]
	for _, b := range l.blocks {
		l.buf = append(l.buf, b...)
	}
	clear(l.blocks)
	return append(l.buf, chunk...), err
}

// drop reads the rest of a line over the limit, of which l.blocks and chunk are read,
// scanning it into l.over as it goes.
func (l *lineReader) drop(chunk []byte, err error) ([]byte, error) {
	if !l.cont {
		l.over = overlong{sse: l.sse}
		l.over.feed(l.before)
	}
	for _, b := range l.blocks {
		l.over.feed(b)
	}
	clear(l.blocks)
	l.blocks = l.blocks[:0]
	l.over.feed(chunk)
	for err == bufio.ErrBufferFull {
		chunk, err = l.r.ReadSlice('\n')
		l.over.feed(chunk)
	}
	if !l.sse {
		l.over.size -= int64(lineEnd(chunk))
	}
	return nil, errOverlong
}

// lineEnd returns the length of the line end that b ends with.
func lineEnd(b []byte) int {
	switch {
	case bytes.HasSuffix(b, []byte("\r\n")):
		return 2
	case bytes.HasSuffix(b, []byte("\n")):
		return 1
	}
	return 0
}

// maxUnanswered bounds the messages ListToolsStdio reads while it waits for one answer.
const maxUnanswered = 100_000

// ListToolsStdio lists the tools of the MCP server at the other end of serverIn and
// serverOut (a command's stdin and stdout) as a client does: initialize,
// notifications/initialized, then tools/list for every page. It returns them as one
// tools/list result, each tool with the bytes the server sent, and closes serverIn. The
// server's own requests meanwhile get an error, as a client that declared no
// capabilities answers them; a line over DefaultMaxMessage bytes ends the listing.
func ListToolsStdio(serverIn io.WriteCloser, serverOut io.Reader) ([]byte, error) {
	defer serverIn.Close()
	lines := newLineReader(serverOut, DefaultMaxMessage)
	send := func(b []byte) error {
		_, err := serverIn.Write(append(b, '\n'))
		return err
	}
	// call sends req and returns the server's answer to the request whose id is key.
	call := func(req []byte, key string) ([]byte, error) {
		if err := send(req); err != nil {
			return nil, err
		}
		for read := 0; ; read++ {
			if read == maxUnanswered {
				return nil, fmt.Errorf("the server sent %d messages without answering", maxUnanswered)
			}
			line, err := lines.next()
			if m, ok := parseMessage(line); ok {
				switch {
				case m.method != "" && m.id != nil:
					if err := send([]byte(`{"jsonrpc":"2.0","id":` + string(m.id) + `,"error":{"code":-32601,"message":"Method not found"}}`)); err != nil {
						return nil, err
					}
				case m.method == "" && idKey(m.id) == key:
					return line, nil
				}
			}
			switch {
			case err == errOverlong:
				return nil, fmt.Errorf("the server sent a line of over %d bytes", DefaultMaxMessage)
			case err == io.EOF:
				return nil, errors.New("the server's output ended before it answered")
			case err != nil:
				return nil, err
			}
		}
	}
	b, err := call([]byte(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18",`+
		`"capabilities":{},"clientInfo":{"name":"mcpvalidate","version":"1"}}}`), `"init`)
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if m, _ := parseMessage(b); m.result == nil {
		return nil, fmt.Errorf("initialize: the server answered %s", clip(b))
	}
	if err := send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		return nil, fmt.Errorf("notifications/initialized: %w", err)
	}
	return listPages(func(req []byte) ([]byte, error) { return call(req, `"list`) })
}
