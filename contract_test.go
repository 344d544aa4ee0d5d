package mcpvalidate

// What the tests of the mcp-go adapter expect, as the contract states it: the weather schema,
// the texts a refusal opens with or is, and the bounds on what a refusal holds. They are
// written here, not read from package guard, so that a change there shows here.

const weatherSchema = `{"type":"object","properties":{"location":{"type":"string"},"days":{"type":"integer"},
"units":{"type":"string","enum":["c","f"]}},"required":["location"],"additionalProperties":false}`

const (
	refusalPrefix    = "Invalid arguments: "
	replacedText     = "This tool changed while the call was on its way, so it was not run. Please call it again."
	brokenSchemaText = "This tool cannot be called: its input schema is invalid. The server's operator has been told; please do not retry."
	brokenOutputText = "This tool cannot be called: its output schema is invalid. The server's operator has been told; please do not retry."
	badResultText    = "The tool failed on the server's side: its result does not match the tool's output schema, so it was withheld. The arguments were not the problem, and calling the tool again the same way will not help. The server's operator has been told."
)

const (
	maxRefusal = 8 << 10 // bytes of a refusal's text
	nameShown  = 64      // characters of a member name shown whole
	nameHead   = 32      // characters shown from the start of an elided name
	nameTail   = 16      // and from its end
	pathShown  = 20      // steps of a path shown whole
	pathEnds   = 10      // steps shown at each end of an elided path
)
