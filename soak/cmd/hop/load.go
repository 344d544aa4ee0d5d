//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// An upstreamTool is a tool of the server measured, with the answer it gives.
type upstreamTool struct {
	name, description, schema string
	answer                    func(args map[string]any) string
}

var upstreamTools = []upstreamTool{
	{"get_forecast", "The weather forecast for a place, day by day.",
		`{"type":"object","properties":{` +
			`"location":{"type":"string","minLength":1,"maxLength":100,"description":"a city, or latitude,longitude"},` +
			`"days":{"type":"integer","minimum":1,"maximum":16},` +
			`"units":{"type":"string","enum":["celsius","fahrenheit"]},` +
			`"hourly":{"type":"boolean"}},` +
			`"required":["location"],"additionalProperties":false}`,
		func(a map[string]any) string {
			return fmt.Sprintf("%v: %v days in %v, hourly %v", a["location"], a["days"], a["units"], a["hourly"])
		}},
	{"search_issues", "Search a repository's issues.",
		`{"type":"object","properties":{` +
			`"repo":{"type":"string","pattern":"^[A-Za-z0-9-]+/[A-Za-z0-9._-]+$"},` +
			`"query":{"type":"string","minLength":1,"maxLength":256},` +
			`"state":{"enum":["open","closed","all"]},` +
			`"labels":{"type":"array","items":{"type":"string","minLength":1,"maxLength":50},"uniqueItems":true,"maxItems":10},` +
			`"since":{"type":"string","format":"date-time"},` +
			`"page":{"type":"object","properties":{"size":{"type":"integer","minimum":1,"maximum":100},"cursor":{"type":"string"}},"additionalProperties":false}},` +
			`"required":["repo","query"],"additionalProperties":false}`,
		func(a map[string]any) string {
			return fmt.Sprintf("%v in %v (%v, labels %v, page %v)", a["query"], a["repo"], a["state"], a["labels"], a["page"])
		}},
}

// toolCalls are the valid calls the sessions send, in turn, with the text each answer holds.
var toolCalls = []struct{ tool, args, text string }{
	{"get_forecast", `{"location":"Oslo","days":3,"units":"celsius"}`, "Oslo: 3 days in celsius, hourly <nil>"},
	{"search_issues", `{"repo":"mark3labs/mcp-go","query":"streamable http session","state":"open","labels":["bug","transport"],"page":{"size":20}}`,
		"streamable http session in mark3labs/mcp-go (open, labels [bug transport], page map[size:20])"},
	{"get_forecast", `{"location":"59.91,10.75","days":16,"units":"fahrenheit","hourly":true}`, "59.91,10.75: 16 days in fahrenheit, hourly true"},
	{"search_issues", `{"repo":"golang/go","query":"net/http: keep-alive","state":"all","since":"2026-01-01T00:00:00Z"}`,
		"net/http: keep-alive in golang/go (all, labels <nil>, page <nil>)"},
}

// A caller sends the sessions' requests. Its pool keeps a connection for every session
// of the largest level, so that no call waits for a connection or opens one after the
// warm-up; it neither compresses nor uses HTTP/2, as MCP clients over loopback do not.
type caller struct{ hc *http.Client }

func newCaller(sessions int) *caller {
	t := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 2*sessions + 16, // a session's requests, and its GET stream
		IdleConnTimeout:     time.Minute,     // under the servers' 2 minutes: none closes a connection as it is reused
		DisableCompression:  true,
	}
	return &caller{hc: &http.Client{Transport: t}}
}

// settings describes the caller, for the report.
func (c *caller) settings() string {
	t := c.hc.Transport.(*http.Transport)
	return fmt.Sprintf("net/http client, HTTP/1.1, MaxIdleConnsPerHost %d (no limit on connections), IdleConnTimeout %v, no compression; "+
		"one goroutine a session, one request at a time, and its GET stream open", t.MaxIdleConnsPerHost, t.IdleConnTimeout)
}

// A session is one MCP session of the client over streamable HTTP.
type session struct {
	c        *caller
	url, id  string
	version  string
	next     int
	unlisten func()        // closes the GET stream
	ended    chan struct{} // closed when the GET stream ends
}

// rpcResponse is a JSON-RPC response, its result left raw.
type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// post sends one message; for a request (id > 0) it returns the response's result.
func (s *session) post(ctx context.Context, method, params string, id int) (json.RawMessage, http.Header, error) {
	body := `{"jsonrpc":"2.0","method":"` + method + `","params":` + params
	if id > 0 {
		body += `,"id":` + strconv.Itoa(id)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, strings.NewReader(body+"}"))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
	}
	if s.version != "" {
		req.Header.Set("Mcp-Protocol-Version", s.version)
	}
	resp, err := s.c.hc.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", method, err)
	}
	defer resp.Body.Close()
	if id == 0 && resp.StatusCode == http.StatusAccepted {
		io.Copy(io.Discard, resp.Body)
		return nil, resp.Header, nil
	}
	if resp.StatusCode != http.StatusOK || id == 0 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, nil, fmt.Errorf("%s: %s: %s", method, resp.Status, b)
	}
	msg, err := responseBody(resp)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", method, err)
	}
	var r rpcResponse
	if err := json.Unmarshal(msg, &r); err != nil {
		return nil, nil, fmt.Errorf("%s: %w in %.200q", method, err, msg)
	}
	switch {
	case string(r.ID) != strconv.Itoa(id):
		return nil, nil, fmt.Errorf("%s: the answer's id is %s, not %d", method, r.ID, id)
	case r.Error != nil:
		return nil, nil, fmt.Errorf("%s: error %d: %s", method, r.Error.Code, r.Error.Message)
	}
	return r.Result, resp.Header, nil
}

// responseBody returns the JSON-RPC response of a POST's answer: its body, or the first
// message of its event stream that is not a request or notification.
func responseBody(resp *http.Response) ([]byte, error) {
	ct := resp.Header.Get("Content-Type")
	if !strings.HasPrefix(ct, "text/event-stream") {
		return io.ReadAll(resp.Body)
	}
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadBytes('\n')
		if data, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = bytes.TrimSpace(data)
			if !bytes.Contains(data, []byte(`"method"`)) {
				return data, nil
			}
		}
		if err != nil {
			return nil, fmt.Errorf("an event stream without the response: %w", err)
		}
	}
}

// open starts the session: initialize, notifications/initialized, its GET stream, open
// until stream ends, and, when it lists, tools/list, whose tools must be the server's.
func (s *session) open(ctx, stream context.Context, lists bool) error {
	res, h, err := s.post(ctx, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hop","version":"1.0.0"}}`, 1)
	if err != nil {
		return err
	}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(res, &init); err != nil || init.ProtocolVersion == "" {
		return fmt.Errorf("initialize: no protocolVersion in %.200q", res)
	}
	s.id, s.version, s.next = h.Get("Mcp-Session-Id"), init.ProtocolVersion, 2
	if _, _, err := s.post(ctx, "notifications/initialized", `{}`, 0); err != nil {
		return err
	}
	if err := s.listen(stream); err != nil {
		return err
	}
	if !lists {
		return nil
	}
	if res, _, err = s.post(ctx, "tools/list", `{}`, s.nextID()); err != nil {
		return err
	}
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(res, &list); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	var names []string
	for _, t := range list.Tools {
		names = append(names, t.Name)
	}
	if want := []string{upstreamTools[0].name, upstreamTools[1].name}; !slices.Equal(names, want) {
		return fmt.Errorf("tools/list: tools %q, not %q", names, want)
	}
	return nil
}

func (s *session) nextID() int {
	s.next++
	return s.next
}

// call sends toolCalls[i] and checks its answer.
func (s *session) call(ctx context.Context, i int) error {
	tc := toolCalls[i]
	res, _, err := s.post(ctx, "tools/call", `{"name":"`+tc.tool+`","arguments":`+tc.args+`}`, s.nextID())
	if err != nil {
		return err
	}
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return fmt.Errorf("tools/call: %w", err)
	}
	if r.IsError || len(r.Content) != 1 || r.Content[0].Text != tc.text {
		return fmt.Errorf("tools/call %s: answered %.300s, not the text %q", tc.tool, res, tc.text)
	}
	return nil
}

// listen opens the session's GET stream, on which the server may send list_changed, and
// returns once the server has answered it, as SDK clients do. Through the mcpvalidate
// proxy, a session without one has its tool list fetched again before each call: the
// proxy could not hear of a change.
func (s *session) listen(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		cancel()
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", s.id)
	req.Header.Set("Mcp-Protocol-Version", s.version)
	resp, err := s.c.hc.Do(req)
	if err != nil {
		cancel()
		return fmt.Errorf("GET: %w", err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		cancel()
		return fmt.Errorf("GET: %s, %s: %s", resp.Status, resp.Header.Get("Content-Type"), b)
	}
	s.ended = make(chan struct{})
	go func() {
		io.Copy(io.Discard, resp.Body) // until the stream is closed
		close(s.ended)
	}()
	s.unlisten = func() {
		cancel()
		resp.Body.Close()
	}
	return nil
}

// close closes the session's GET stream and ends the session with a DELETE, as a client
// done with it does.
func (s *session) close(ctx context.Context) error {
	if s.unlisten != nil {
		select {
		case <-s.ended: // a session whose stream ended would be measured as one without
			return errors.New("the session's GET stream ended before the session did")
		default:
		}
		s.unlisten()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, s.url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Mcp-Session-Id", s.id)
	req.Header.Set("Mcp-Protocol-Version", s.version)
	resp, err := s.c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("DELETE: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("DELETE: %s: %s", resp.Status, b)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// A sample is what one round measured at one endpoint.
type sample struct {
	calls   int
	elapsed time.Duration
	latency []time.Duration // of each tools/call
	cpu     [procs]time.Duration
}

// round opens n sessions at each endpoint of es, each session sending per tool calls one
// at a time after opening, then closing. The calls go in k slices, each taking the
// endpoints in turn, the first of them rotating from slice to slice starting from es[first],
// so that what the machine does meanwhile falls on every endpoint alike; a session opens in
// the first slice and closes in the last. It returns each endpoint's sample: the tool
// calls' latencies, the time its slices took, and the CPU time each process spent in them.
func round(ctx context.Context, c *caller, f *fleet, es []int, n, per, k, first int, lists bool) ([endpoints]sample, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var samples [endpoints]sample
	var sessions [endpoints][]*session
	for _, e := range es {
		samples[e] = sample{calls: n * per, latency: make([]time.Duration, n*per)}
		sessions[e] = make([]*session, n)
		for i := range sessions[e] {
			sessions[e][i] = &session{c: c, url: f.urls[e]}
		}
	}
	defer func() {
		for _, e := range es {
			for _, sess := range sessions[e] {
				if sess.unlisten != nil {
					sess.unlisten()
				}
			}
		}
	}()
	for j := range k {
		from, to := j*per/k, (j+1)*per/k
		for t := range es {
			e := es[(first+j+t)%len(es)]
			if err := slice(ctx, f, sessions[e], &samples[e], per, from, to, j == 0, j == k-1, lists); err != nil {
				return samples, fmt.Errorf("%s: %w", endpointNames[e], err)
			}
		}
	}
	return samples, nil
}

// slice sends, on each of the sessions at once, its tool calls from..to of per, opening the
// session first when opens and closing it after when closes, and adds the time it took and
// the CPU time each process spent meanwhile to s. A session's GET stream, opened under
// round, the round's context, outlives the slice; the slice's first failure ends the
// slice's requests.
func slice(round context.Context, f *fleet, sessions []*session, s *sample, per, from, to int, opens, closes, lists bool) error {
	ctx, cancel := context.WithCancel(round)
	defer cancel()
	var (
		once     sync.Once
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		once.Do(func() { firstErr = err; cancel() })
	}
	before, err := cpuTimes(f)
	if err != nil {
		return err
	}
	start := time.Now()
	for i, sess := range sessions {
		wg.Go(func() {
			if opens {
				if err := sess.open(ctx, round, lists); err != nil {
					fail(err)
					return
				}
			}
			lat := s.latency[i*per+from : i*per+to]
			for j := range lat {
				t := time.Now()
				if err := sess.call(ctx, (i+from+j)%len(toolCalls)); err != nil {
					fail(err)
					return
				}
				lat[j] = time.Since(t)
			}
			if closes {
				if err := sess.close(ctx); err != nil {
					fail(err)
				}
			}
		})
	}
	wg.Wait()
	s.elapsed += time.Since(start)
	if firstErr != nil {
		return firstErr
	}
	after, err := cpuTimes(f)
	if err != nil {
		return err
	}
	for i := range s.cpu {
		s.cpu[i] += after[i] - before[i]
	}
	return nil
}

// cpuTimes reads the CPU time each process has used so far.
func cpuTimes(f *fleet) ([procs]time.Duration, error) {
	var t [procs]time.Duration
	for i := range t {
		pid := f.pid(i)
		if pid == 0 {
			continue
		}
		var err error
		if t[i], err = processCPU(pid); err != nil {
			return t, err
		}
	}
	return t, nil
}

// The endpoints, in the order of fleet.urls.
const (
	direct = iota
	reverse
	mcpvalidate
	baseline // with -baseline
	endpoints
)

var endpointNames = [endpoints]string{"direct", "reverse proxy", "mcpvalidate proxy", "mcpvalidate baseline"}

// A cell is a level and a variant: its samples for each endpoint, one a round.
type cell struct {
	sessions, perSession int
	slices               int // of each round
	variant              variant
	samples              [endpoints][]sample
	// proxied are the tool calls sent to the mcpvalidate proxy, the warm-up round's too:
	// those of the cell's profile, with -cpuprofile.
	proxied int
	profile string   // the file of the cell's profile, with -cpuprofile
	own     *ownWork // read from it
}

// cellProfile names the file of the profile of the cell of n sessions and the variant v,
// beside the run's.
func cellProfile(run string, n int, v variant) string {
	return run + "." + strconv.Itoa(n) + "-" + string(v)
}

// measure runs every level and variant: a warm-up round at each endpoint (not counted),
// then the rounds, each taking the endpoints in turn slice by slice, the first of them
// rotating from round to round so that none always follows another.
func measure(ctx context.Context, c config, f *fleet, log io.Writer) (*measurement, error) {
	cl := newCaller(slices.Max(c.levels))
	m := &measurement{config: c, client: cl.settings()}
	active := f.endpoints()
	for _, v := range c.variants {
		for _, n := range c.levels {
			ce := cell{sessions: n, perSession: c.perSession(n), variant: v}
			ce.slices = c.slicesOf(ce.perSession)
			if c.cpuprofile != "" {
				ce.profile = cellProfile(c.cpuprofile, n, v)
				if err := f.profileTo(ctx, ce.profile); err != nil {
					return nil, err
				}
			}
			warm, err := round(ctx, cl, f, active, n, 1, 1, 0, v == listing)
			if err != nil {
				return nil, fmt.Errorf("warm-up, %d sessions, %s: %w", n, v, err)
			}
			ce.proxied += warm[mcpvalidate].calls
			for r := range c.rounds {
				s, err := round(ctx, cl, f, active, n, ce.perSession, ce.slices, r, v == listing)
				if err != nil {
					return nil, fmt.Errorf("%d sessions, %s, round %d: %w", n, v, r+1, err)
				}
				for _, e := range active {
					ce.samples[e] = append(ce.samples[e], s[e])
				}
				ce.proxied += s[mcpvalidate].calls
			}
			fmt.Fprintf(log, "hop: %d sessions, %s: %d rounds of %d calls an endpoint, in %d slices\n", n, v, c.rounds, n*ce.perSession, ce.slices)
			m.cells = append(m.cells, ce)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return m, nil
}
