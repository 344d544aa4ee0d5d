package guard

// The rules of LintFor, one a row: what each provider does with a construct of a tool's
// schema, the fix, and where it was read (sourcesRead). A source that is an issue or pull
// request quotes the error the provider's API returned there. Only what a source shows is
// here: a construct whose fate no source shows has no rule.

const (
	openAIGuide    = "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas"
	anthropicGuide = "https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations"
	geminiSchema   = "https://ai.google.dev/api/caching#Schema"
)

// openAIFormats are the string formats OpenAI's strict mode takes.
var openAIFormats = []string{"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}

// geminiFields are the fields of the Gemini API's Schema: any other member of a schema is
// an unknown field to it.
var geminiFields = []string{"anyOf", "default", "description", "enum", "example", "format", "items", "maximum",
	"maxItems", "maxLength", "maxProperties", "minimum", "minItems", "minLength", "minProperties", "nullable",
	"pattern", "properties", "propertyOrdering", "required", "title", "type"}

var providerRules = []providerRule{
	// OpenAI, "strict": true.
	{target: OpenAIStrict, id: "additional-properties", effect: Rejects, at: notClosed,
		says:   `every object must say "additionalProperties": false ("'additionalProperties' is required to be supplied and to be false"); a map of free names cannot be strict: send it as an array of {key, value} objects, or send the tool without "strict"`,
		source: openAIGuide + "; https://github.com/langchain-ai/langchainjs/issues/9496"},
	{target: OpenAIStrict, id: "object-without-properties", effect: Rejects, at: objectWithoutProperties,
		says:   `an object must declare its properties ("object schema missing properties"): give "properties": {} and "required": [] to a tool that takes none`,
		source: "https://github.com/github/github-mcp-server/issues/1548"},
	{target: OpenAIStrict, id: "optional-member", effect: Rejects, at: optionalMembers,
		says:   `every property must be listed in "required": list it, and let it be null where it may be left out ("type": ["string", "null"])`,
		source: openAIGuide + "; https://github.com/posit-dev/chatlas/pull/255"},
	{target: OpenAIStrict, id: "root-not-object", effect: Rejects, at: rootNotObject,
		says:   `the root must be {"type": "object"}: wrap the value in an object's property`,
		source: openAIGuide},
	{target: OpenAIStrict, id: "root-composition", effect: Rejects, at: rootKeywords("anyOf", "oneOf", "allOf", "enum", "not"),
		says:   `the root must not have anyOf, oneOf, allOf, enum or not ("schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level"): move the choice into a property`,
		source: openAIGuide + "; https://github.com/langchain-ai/langchainjs/issues/9804"},
	{target: OpenAIStrict, id: "one-of", effect: Rejects, at: keywords("oneOf"),
		says:   `"oneOf" is not permitted: write anyOf, which means the same where the alternatives cannot both hold`,
		source: openAIGuide + "; https://github.com/ai-dynamo/dynamo/issues/15153"},
	{target: OpenAIStrict, id: "composition", effect: Rejects, at: keywords("allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas"),
		says:   `allOf, not, if/then/else, dependentRequired and dependentSchemas are not supported: merge an allOf into its schema, and state the rest in the description`,
		source: openAIGuide},
	{target: OpenAIStrict, id: "format", effect: Rejects, at: formatOutside(openAIFormats...),
		says:   `this format is not one strict mode knows (date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid): remove it and say the form in the description`,
		source: openAIGuide + "; https://github.com/posit-dev/chatlas/pull/255"},
	{target: OpenAIStrict, id: "array-without-items", effect: Rejects, at: arrayWithoutItems,
		says:   `an array must say what its items are ("array schema missing items"), even without strict: give "items"`,
		source: "https://github.com/docker/mcp-gateway/issues/264"},
	{target: OpenAIStrict, id: "untyped", effect: Rejects, at: untyped,
		says:   `every schema must have a type ("schema must have a 'type' key"): give one, or an anyOf of typed schemas`,
		source: "https://github.com/FlowiseAI/Flowise/issues/5109"},
	{target: OpenAIStrict, id: "properties", effect: Rejects, total: func(s *schemaSums) string { return over("object properties", s.properties, 5000) },
		says: "", source: openAIGuide},
	{target: OpenAIStrict, id: "nesting", effect: Rejects, total: func(s *schemaSums) string { return over("levels of nested objects", s.depth, 10) },
		says: "", source: openAIGuide},
	{target: OpenAIStrict, id: "enum-values", effect: Rejects, total: func(s *schemaSums) string { return over("enum values", s.enumValues, 1000) },
		says: "", source: openAIGuide},
	{target: OpenAIStrict, id: "text", effect: Rejects, total: func(s *schemaSums) string {
		return over("characters of property and definition names, enum and const values", s.text, 120_000)
	}, says: "", source: openAIGuide},
	{target: OpenAIStrict, id: "large-enum", effect: Rejects, total: func(s *schemaSums) string {
		return over("characters in an enum of over 250 values", s.bigEnum, 15_000)
	}, says: "", source: openAIGuide},

	// Anthropic, without and with strict tool use.
	{target: Anthropic, id: "root-composition", effect: Rejects, at: rootKeywords("oneOf", "allOf", "anyOf"),
		says:   `"input_schema does not support oneOf, allOf, or anyOf at the top level": move the choice into a property`,
		source: "https://github.com/aliargun/mcp-server-gemini/issues/8"},
	{target: AnthropicStrict, id: "root-composition", effect: Rejects, at: rootKeywords("oneOf", "allOf", "anyOf"),
		says:   `"input_schema does not support oneOf, allOf, or anyOf at the top level": move the choice into a property`,
		source: "https://github.com/aliargun/mcp-server-gemini/issues/8"},
	{target: AnthropicStrict, id: "additional-properties", effect: Rejects, at: notClosed,
		says:   `"For 'object' type, 'additionalProperties' must be explicitly set to false": set it on every object`,
		source: anthropicGuide + "; https://github.com/vercel/ai/issues/20681"},
	{target: AnthropicStrict, id: "number-bounds", effect: Rejects, at: keywords("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
		says:   `numerical constraints are not supported: state the bound in the description`,
		source: anthropicGuide},
	{target: AnthropicStrict, id: "string-length", effect: Rejects, at: keywords("minLength", "maxLength"),
		says:   `string length constraints are not supported: state them in the description`,
		source: anthropicGuide},
	{target: AnthropicStrict, id: "array-bounds", effect: Rejects, at: itemsBeyondOne,
		says:   `array constraints beyond minItems 0 or 1 are not supported: state them in the description`,
		source: anthropicGuide},
	{target: AnthropicStrict, id: "recursion", effect: Rejects, at: recursion,
		says:   `recursive schemas are not supported: unroll the recursion to the depth the tool takes`,
		source: anthropicGuide},
	{target: AnthropicStrict, id: "external-ref", effect: Rejects, at: externalRef,
		says:   `external $ref is not supported: bring the schema into $defs`,
		source: anthropicGuide},
	{target: AnthropicStrict, id: "ref-in-all-of", effect: Rejects, at: refInAllOf,
		says:   `allOf with $ref is not supported: write the referenced schema in place`,
		source: anthropicGuide},
	{target: AnthropicStrict, id: "enum-values", effect: Rejects, at: enumOf("string", "number", "boolean", "null"),
		says:   `an enum may hold strings, numbers, booleans and null only: write an anyOf of const schemas for other values`,
		source: anthropicGuide},
	{target: AnthropicStrict, id: "pattern", effect: Rejects, at: unsupportedPattern,
		says:   `backreferences, lookahead and lookbehind and word boundaries are not supported in patterns: simplify the pattern`,
		source: anthropicGuide},
	{target: AnthropicStrict, id: "optional-parameters", effect: Rejects, total: func(s *schemaSums) string {
		return over("optional parameters (those not in required), counted over every strict tool of a request", s.optional, 24)
	}, says: "", source: anthropicGuide},
	{target: AnthropicStrict, id: "union-parameters", effect: Rejects, total: func(s *schemaSums) string {
		return over("parameters of anyOf or a list of types, counted over every strict tool of a request", s.unions, 16)
	}, says: "", source: anthropicGuide},

	// Gemini, functionDeclarations[].parameters.
	{target: Gemini, id: "unknown-field", effect: Rejects, at: keywordsOutside(geminiFields...),
		says:   `not a field of Gemini's Schema ("Invalid JSON payload received. Unknown name"): remove it, or send the schema as parametersJsonSchema`,
		source: geminiSchema + "; https://github.com/promptfoo/promptfoo/issues/6902"},
	{target: Gemini, id: "default", effect: Ignores, at: keywords("default"),
		says:   `"default" is accepted and ignored: say the default in the description`,
		source: geminiSchema},
	{target: Gemini, id: "type-list", effect: Rejects, at: typeList,
		says:   `"type" takes one type ("Proto field is not repeating, cannot start list"): give one type and "nullable": true for null`,
		source: "https://github.com/TableProApp/TablePro/issues/1276"},
	{target: Gemini, id: "array-without-items", effect: Rejects, at: arrayWithoutItems,
		says:   `an array must say what its items are ("items: missing field"): give "items"`,
		source: "https://github.com/Skyvern-AI/skyvern/issues/8611"},
	{target: Gemini, id: "enum-values", effect: Rejects, at: enumOf("string"),
		says:   `enum values are strings (TYPE_STRING): write them as strings, or send the schema as parametersJsonSchema`,
		source: geminiSchema + "; https://github.com/anomalyco/opencode/issues/2687"},
	{target: Gemini, id: "format", effect: Rejects, at: formatOutside("enum", "date-time"),
		says:   `a string's format must be "enum" or "date-time" with the Gemini Developer API, "otherwise requests will fail": remove it and say the form in the description`,
		source: "https://firebase.google.com/docs/reference/js/ai.schemashared#schemasharedformat"},
	{target: Gemini, id: "root-without-type", effect: Rejects, at: rootWithoutType,
		says:   `the root needs a type ("requires unspecified property 'type'"): give "type": "object"`,
		source: "https://github.com/google-gemini/gemini-cli/issues/23382"},
}
