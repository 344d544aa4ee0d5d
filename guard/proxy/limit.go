package proxy

import (
	"bytes"
	"errors"
	"io"
	"strconv"
)

// This file bounds what the proxy holds of one message: a message over the limit is read
// to its end and dropped as it is read, its id found on the way, so that whoever awaits
// its answer is answered.

// DefaultMaxMessage is the largest message, in bytes, the proxy reads when
// Options.MaxMessage is 0.
const DefaultMaxMessage = 64 << 20

// errOverlong is a lineReader's error for a line over its limit, which it dropped; its
// over field tells what the line was.
var errOverlong = errors.New("proxy: a message over the limit")

// maxMessage returns the limit o sets.
func (o *Options) maxMessage() int64 {
	if o.MaxMessage > 0 {
		return o.MaxMessage
	}
	return DefaultMaxMessage
}

// overlong scans a message too long to keep, fed in pieces as they are read, for what an
// answer to it needs: its size, its id (a top-level member "id" holding a string or a
// number) and whether it has a member "method". Bytes before the first '{' or '[' are
// passed over. Its cost is a few branches a byte; it holds at most maxIDLen bytes.
type overlong struct {
	size   int64
	id     []byte // nil when none was found
	method bool

	// An SSE event's lines, of an overlong made with sse set, are scanned as the event's
	// data: its data fields' values, joined by newlines; other fields are passed over.
	sse   bool
	line  uint8 // where in its line the event's scan is
	field int   // of the field's name: how many bytes match "data"; -1, none

	started, inString, escaped bool
	depth                      int
	state                      uint8
	member                     uint8 // of the value being read: 'i' id, 'm' method, 0 other
	name                       []byte
	value                      []byte
	spoiled                    bool // the id's value is not one: too long, an object or an array
}

// The states of the top-level object's members.
const (
	wantName uint8 = iota
	inName
	wantColon
	inValue
)

// maxIDLen bounds the id kept; a longer one is none.
const maxIDLen = 256

// Where an SSE event's scan is in a line.
const (
	atField    uint8 = iota // in the field's name
	valueStart              // after "data:", where a space is passed over
	inData                  // in a data field's value
	skipLine                // in another field's value
)

// feed scans the next bytes of the message, or of the SSE event.
func (o *overlong) feed(b []byte) {
	o.size += int64(len(b))
	if !o.sse {
		o.scan(b)
		return
	}
	for len(b) > 0 {
		switch o.line {
		case inData, skipLine:
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				if o.line == inData {
					o.scan(b)
				}
				return
			}
			if o.line == inData {
				o.scan(b[:i+1]) // the newline joins it to the next data line's value
			}
			b, o.line, o.field = b[i+1:], atField, 0
		case valueStart:
			if b[0] == ' ' {
				b = b[1:]
			}
			o.line = inData
		default:
			c := b[0]
			b = b[1:]
			switch {
			case c == ':' && o.field == len("data"):
				o.line = valueStart
			case c == ':':
				o.line = skipLine
			case c == '\n':
				if o.field == len("data") { // "data" alone: an empty value
					o.scan([]byte{'\n'})
				}
				o.field = 0
			case o.field >= 0 && o.field < len("data") && c == "data"[o.field]:
				o.field++
			default:
				o.field = -1
			}
		}
	}
}

// scan scans the next bytes of the message.
func (o *overlong) scan(b []byte) {
	for _, c := range b {
		if !o.started {
			switch c {
			case '{':
				o.started, o.depth = true, 1
			case '[':
				o.started, o.depth = true, 2 // a batch: nothing in it is at the top
			}
			continue
		}
		if o.inString {
			switch {
			case o.escaped:
				o.escaped = false
			case c == '\\':
				o.escaped = true
			case c == '"':
				o.inString = false
				if o.depth == 1 && o.state == inName {
					o.state = wantColon
					continue
				}
			}
			o.keep(c)
			continue
		}
		switch c {
		case '"':
			o.inString = true
			if o.depth == 1 && o.state == wantName {
				o.state, o.name = inName, o.name[:0]
				continue
			}
			o.keep(c)
		case '{', '[':
			if o.depth == 1 && o.member == 'i' {
				o.spoiled = true
			}
			o.depth++
		case '}', ']':
			if o.depth == 1 {
				o.end()
			}
			o.depth--
		case ':':
			if o.depth == 1 && o.state == wantColon {
				o.state, o.value, o.spoiled = inValue, o.value[:0], false
				switch string(o.name) {
				case "id":
					o.member = 'i'
				case "method":
					o.member = 'm'
				default:
					o.member = 0
				}
			}
		case ',':
			if o.depth == 1 {
				o.end()
				o.state = wantName
			}
		case ' ', '\t', '\r', '\n':
		default:
			o.keep(c)
		}
	}
}

// keep keeps c, when it belongs to a member's name or to the id's value.
func (o *overlong) keep(c byte) {
	if o.depth != 1 {
		return
	}
	switch {
	case o.state == inName && len(o.name) < len("method"):
		o.name = append(o.name, c)
	case o.state == inName:
		o.name = append(o.name[:0], '?') // longer than any name looked for
	case o.state == inValue && o.member == 'i' && len(o.value) < maxIDLen:
		o.value = append(o.value, c)
	case o.state == inValue && o.member == 'i':
		o.spoiled = true
	}
}

// end ends the member being read at the top.
func (o *overlong) end() {
	if o.state != inValue {
		return
	}
	switch o.member {
	case 'i':
		if !o.spoiled && o.id == nil && len(o.value) > 0 && (o.value[0] == '"' || o.value[0] == '-' || '0' <= o.value[0] && o.value[0] <= '9') {
			o.id = bytes.Clone(o.value)
		}
	case 'm':
		o.method = true
	}
	o.member = 0
}

// readAtMost reads r, of the length size when it is positive, to its end;
// errOverlong when it holds over max bytes.
func readAtMost(r io.Reader, size, max int64) ([]byte, error) {
	b, err := readAll(r, size, max)
	if err == nil && int64(len(b)) > max {
		return nil, errOverlong
	}
	return b, err
}

// readAll reads r to its end as io.ReadAll does, but for max+1 bytes at most, into room
// for size bytes and the end when size, a declared length, is positive: one allocation,
// and no copy, when the declaration holds. Room is made ahead for maxAhead bytes at most:
// the rest, if it comes, is made as it comes.
func readAll(r io.Reader, size, max int64) ([]byte, error) {
	room := int64(512) // as io.ReadAll's
	if size > 0 {
		room = min(size, maxAhead) + 1
	}
	b := make([]byte, 0, min(room, max+1))
	for int64(len(b)) <= max {
		n, err := r.Read(b[len(b):min(int64(cap(b)), max+1)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
	return b, nil
}

// maxAhead bounds, in bytes, the room made for a body before it is read, whatever length
// it declares.
const maxAhead = 64 << 10

// serverOverlong answers for a server's message over the limit, which was dropped. A
// response becomes an error response to its request, returned for the caller to pass
// through fromServer as the server's message, so that the request is answered as any
// other is; a request of the server's is answered with an error through toServer, when
// there is one; nothing else is answered. A request, or a message whose id was not
// found, may have been a list_changed: the list is stale.
func (p *Proxy) serverOverlong(s *session, o *overlong, toServer func([]byte) error) []byte {
	limit := p.opts.maxMessage()
	p.logOverlong("the MCP server", s, o, limit)
	if o.method || o.id == nil {
		s.listChanged()
	}
	switch {
	case o.id != nil && !o.method:
		return errorResponse(o.id, -32603, tooLong("the MCP server's response", o.size, limit))
	case o.id != nil && toServer != nil:
		_ = toServer(errorResponse(o.id, -32600, tooLong("the request", o.size, limit)))
	}
	return nil
}

func (p *Proxy) logOverlong(from string, s *session, o *overlong, limit int64) {
	if p.log != nil {
		p.log.Warn("mcpvalidate proxy: a message over the limit was dropped", "from", from, "session", s.id,
			"bytes", o.size, "limit", limit, "request", o.method)
	}
}

// tooLong says what the proxy did not pass on; size < 0: not read to its end.
func tooLong(what string, size, limit int64) string {
	is := " is "
	if size >= 0 {
		is += strconv.FormatInt(size, 10) + " bytes, "
	}
	return "mcpvalidate proxy: " + what + is + "over the proxy's limit of " + strconv.FormatInt(limit, 10) +
		" bytes, so it was not passed on"
}
