package testsuite

// What the oracle, santhosh-tekuri/jsonschema, can be asked to judge against mcpvalidate:
// the tests that compare the two leave out the arguments these refuse.

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
)

// PlainJSON reports whether well-formed JSON nests at most maxDepth arrays and objects
// deep and has no member name twice in one object. Validate refuses the others on purpose,
// while the oracle decodes duplicates last-wins and has no depth limit.
func PlainJSON(data []byte, maxDepth int) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		names map[string]bool // nil for an array
		key   bool            // the next token of this object is a member name
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return true
		}
		if err != nil {
			return false
		}
		if n := len(stack); n > 0 && stack[n-1].key {
			if name, ok := tok.(string); ok {
				top := stack[n-1]
				if top.names[name] {
					return false
				}
				top.names[name], top.key = true, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{names: map[string]bool{}, key: true})
			if len(stack) > maxDepth {
				return false
			}
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			if len(stack) > maxDepth {
				return false
			}
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value has ended: the object holding it expects a member name next.
		if n := len(stack); n > 0 && stack[n-1].names != nil {
			stack[n-1].key = true
		}
	}
}

// MaxOracleExponent bounds the decimal exponents the oracle is asked to judge. It holds
// numbers as exact big.Rat values: math/big refuses exponents beyond 1e6 (the oracle then
// panics or misjudges), and those near that bound cost it tens of milliseconds each.
const MaxOracleExponent = 10000

// ModestNumbers reports whether every number in well-formed JSON has a decimal exponent,
// counting its digits, within MaxOracleExponent.
func ModestNumbers(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return true
		}
		if err != nil {
			return false
		}
		num, ok := tok.(json.Number)
		if !ok {
			continue
		}
		mantissa, exp, _ := strings.Cut(strings.ToLower(string(num)), "e")
		var e int64
		if exp != "" {
			if e, err = strconv.ParseInt(exp, 10, 64); err != nil {
				return false
			}
		}
		if e < -MaxOracleExponent || e > MaxOracleExponent || int64(len(mantissa))+max(e, -e) > MaxOracleExponent {
			return false
		}
	}
}
