package guard

import "strings"

// An ElicitationError is a client's answer to a form elicitation whose content breaks the
// requestedSchema it answers: what is wrong, in the guard's words, never a value.
type ElicitationError struct {
	Violations []Violation
	text       string
}

// Error is "Invalid elicitation response: " and the violations' messages, joined by "; ".
func (e *ElicitationError) Error() string { return e.text }

// CheckElicitation checks content, what a client accepted a form elicitation with, against
// schema, the requestedSchema of the request it answers: nil when it holds, else an
// *ElicitationError. A schema that does not compile is an error of its own, as from
// Compile. The guard's compile options and formatter apply; nothing is counted.
func (g *Guard) CheckElicitation(schema, content []byte) error {
	v, err := compileWith(schema, g.cfg)
	if err != nil {
		return err
	}
	vs := v.Validate(content)
	if vs == nil {
		return nil
	}
	return &ElicitationError{Violations: vs, text: "Invalid elicitation response: " + strings.Join(Messages(vs, g.cfg.formatter), "; ")}
}
