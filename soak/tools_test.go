package soak

import (
	"fmt"
	"math/rand/v2"
)

// The tools the soak's servers offer: three server tools, registered again every 50 to
// 250 ms with a schema that cycles through four versions, and eight session tools per
// session. Six of a session's schemas come in 97 variants shared between sessions, so that
// most bindings find their text compiled; two are unique to the session, so that the
// cache keeps compiling and evicting. Each tool has one call valid under every version and
// variant of its schema and one invalid under all of them.

// A toolSpec is one tool: its schema for a version or variant v, and two calls.
type toolSpec struct {
	name           string
	schema         func(v int) string
	valid, invalid string
}

var serverTools = []toolSpec{
	{"echo", func(v int) string {
		return fmt.Sprintf(`{"type":"object","properties":{"text":{"type":"string","maxLength":%d}},"required":["text"],"additionalProperties":false}`, 64+v)
	}, `{"text":"hello"}`, `{"text":5}`},
	{"add", func(v int) string {
		return fmt.Sprintf(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer","minimum":%d}},"required":["a","b"]}`, -1000-v)
	}, `{"a":1,"b":2}`, `{"a":"1","b":2}`},
	{"pick", func(v int) string {
		return fmt.Sprintf(`{"type":"object","properties":{"color":{"enum":["red","green","blue"]},"n":{"type":"integer","multipleOf":%d}},"required":["color"]}`, v+1)
	}, `{"color":"red","n":0}`, `{"color":"pink"}`},
}

// sharedVariants is how many variants the shared session schemas come in.
const sharedVariants = 97

var sessionTools = []toolSpec{
	{"lookup", func(v int) string {
		return fmt.Sprintf(`{"type":"object","properties":{"id":{"type":"string","pattern":"^[a-z]{2}-[0-9]{1,6}$"},"limit":{"type":"integer","minimum":1,"maximum":%d}},"required":["id"],"additionalProperties":false}`, 10+v%sharedVariants)
	}, `{"id":"ab-12","limit":5}`, `{"id":"AB12","limit":0}`},
	{"route", func(v int) string {
		return fmt.Sprintf(`{"type":"object","properties":{"mode":{"enum":["walk","bike","car","v%d"]}},"required":["mode"]}`, v%sharedVariants)
	}, `{"mode":"bike"}`, `{"mode":"plane"}`},
	{"order", func(v int) string {
		return fmt.Sprintf(`{"type":"object","properties":{"items":{"type":"array","maxItems":%d,"items":{"type":"object","properties":{"sku":{"type":"string","minLength":3},"qty":{"type":"integer","minimum":1}},"required":["sku","qty"]}}},"required":["items"]}`, 5+v%sharedVariants)
	}, `{"items":[{"sku":"abc","qty":2}]}`, `{"items":[{"sku":"a","qty":0}]}`},
	{"shape", func(v int) string {
		return fmt.Sprintf(`{"type":"object","properties":{"shape":{"oneOf":[{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number","exclusiveMinimum":0,"maximum":%d}},"required":["kind","r"]},{"type":"object","properties":{"kind":{"const":"rect"},"w":{"type":"number"},"h":{"type":"number"}},"required":["kind","w","h"]}]}},"required":["shape"]}`, 10+v%sharedVariants)
	}, `{"shape":{"kind":"circle","r":1.5}}`, `{"shape":{"kind":"circle","r":-1}}`},
	{"note", func(v int) string {
		return fmt.Sprintf(`{"type":"object","$defs":{"tag":{"type":"string","maxLength":%d}},"properties":{"tags":{"type":"array","items":{"$ref":"#/$defs/tag"},"uniqueItems":true},"body":{"type":"string"}},"required":["body"]}`, 8+v%sharedVariants)
	}, `{"body":"hi","tags":["a","b"]}`, `{"body":"hi","tags":["a","a"]}`},
	{"window", func(v int) string {
		return fmt.Sprintf(`{"type":"object","properties":{"from":{"type":"integer","minimum":%d},"to":{"type":"integer"}},"dependentRequired":{"from":["to"]}}`, -v%sharedVariants)
	}, `{"from":1,"to":2}`, `{"from":1}`},
	{"query", func(v int) string {
		return fmt.Sprintf(`{"type":"object","description":"the queries of session %d","properties":{"q":{"type":"string","maxLength":%d}},"required":["q"]}`, v, 100+v)
	}, `{"q":"x"}`, `{}`},
	{"range", func(v int) string {
		return fmt.Sprintf(`{"type":"object","properties":{"min":{"type":"number","minimum":%d},"max":{"type":"number","maximum":%d}},"anyOf":[{"required":["min"]},{"required":["max"]}]}`, -v, v+1)
	}, `{"min":0}`, `{}`},
}

// A plannedCall is one call a session makes.
type plannedCall struct {
	tool   *toolSpec
	server bool // a server tool, which may change while the call is on its way
	valid  bool
}

func (c plannedCall) arguments() string {
	if c.valid {
		return c.tool.valid
	}
	return c.tool.invalid
}

// callsPerSession is how many calls a session makes before it ends.
const callsPerSession = 10

// plan returns the calls of session n, the same for the same n: about one in three invalid,
// half of those followed by the same tool's valid call (a repair), and every third session
// ending on an invalid call, whose refusal is still pending when the session ends.
func plan(n int) []plannedCall {
	rng := rand.New(rand.NewPCG(uint64(n), 0x50a4))
	calls := make([]plannedCall, 0, callsPerSession)
	for len(calls) < callsPerSession {
		if k := len(calls); k > 0 && !calls[k-1].valid && rng.IntN(2) == 0 {
			repair := calls[k-1]
			repair.valid = true
			calls = append(calls, repair)
			continue
		}
		c := plannedCall{valid: rng.IntN(3) != 0}
		if i := rng.IntN(len(sessionTools) + len(serverTools)); i < len(sessionTools) {
			c.tool = &sessionTools[i]
		} else {
			c.tool, c.server = &serverTools[i-len(sessionTools)], true
		}
		calls = append(calls, c)
	}
	if n%3 == 0 {
		calls[len(calls)-1].valid = false
	}
	return calls
}
