// Command mcpvalidate checks tool arguments against an MCP tool's inputSchema, runs files
// in the JSON-Schema-Test-Suite format, reviews schemas, and checks the calls of any MCP
// server as a proxy in front of it.
//
//	mcpvalidate check -schema S.json [-format] [-gateway|-detailed] [ARGS.json|-]
//	mcpvalidate suite [-format] FILE.json...
//	mcpvalidate lint [-target T] S.json | -- COMMAND [ARG...] | -upstream URL
//	mcpvalidate proxy [flags] -- COMMAND [ARG...]
//	mcpvalidate proxy [flags] -upstream URL -listen ADDR
//	mcpvalidate intercept [flags] -tools FILE|-gateway URL [-listen ADDR]
//	mcpvalidate report [-json] [-top N] [-share F] [-min N] LOGFILE|-
//
// check prints the violations, one a line, and exits 0 when the arguments are valid, 1 when
// not; suite prints the failing tests, then "N passed, M failed", and exits 1 on failures;
// lint prints advice, one a line (or what a model provider does with the schema, with
// -target), for a schema or each tool of a server, and exits 1 when it has any; proxy puts the same checks
// in front of any MCP server, over stdio or streamable HTTP, and exits with the server's
// status; intercept does it as an interceptor of Docker's MCP Gateway; report sums up a
// guard's JSON log per tool, with suggestions for the tools' schemas and descriptions. A
// bad schema or command line exits 2.
//
// mcpvalidate -h prints every command's usage and flags, mcpvalidate COMMAND -h one command's.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/mcpvalidate/mcpvalidate/guard"
	"github.com/mcpvalidate/mcpvalidate/guard/testsuite"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// A command is one of mcpvalidate's subcommands. define declares its flags on fs and
// returns what runs the command once fs has parsed them.
type command struct {
	name, synopsis, about string
	define                func(fs *flag.FlagSet) action
}

type action func(stdin io.Reader, stdout, stderr io.Writer) (int, error)

var commands = []command{
	{"check", "-schema S.json [-format] [-gateway|-detailed] [ARGS.json|-]",
		"Checks tool arguments (ARGS.json, or stdin) against a tool's inputSchema and prints the\nviolations, one a line. Exit 0 valid, 1 invalid, 2 error.", check},
	{"suite", "[-format] FILE.json...",
		"Runs files in the JSON-Schema-Test-Suite format and prints the failing tests, then\n\"N passed, M failed\". Exit 0 all passed, 1 failures, 2 error.", runSuite},
	{"lint", "[-target T] S.json  |  [-target T] -- COMMAND [ARG...]  |  [-target T] -upstream URL",
		"Reviews a schema (a file that is not executable), or every tool's of a server run as\n" +
			"COMMAND over stdio or reached at URL over streamable HTTP, and prints advice, one a\n" +
			"line, a server's tool by tool. With -target, what that model provider does with the\n" +
			"schema instead: openai-strict, anthropic, anthropic-strict or gemini. Exit 0 none,\n" +
			"1 advice, 2 bad schema or server.", lint},
	{"proxy", "[flags] -- COMMAND [ARG...]  |  [flags] -upstream URL -listen ADDR",
		"Runs COMMAND, an MCP server over stdio, and sits between it and the client on stdin and\n" +
			"stdout; or serves streamable HTTP at http://ADDR/mcp in front of the server at URL.\n" +
			"Checks each tools/call against the inputSchema the server lists and answers an\n" +
			"invalid one itself; passes every other message unchanged. Exits with the server's\n" +
			"status (stdio); 2 on a bad command line.", proxyCommand},
	{"intercept", "[flags] -tools FILE|-gateway URL [-listen ADDR]",
		"A \"before\" interceptor for Docker's MCP Gateway: reads one tools/call request as the\n" +
			"gateway hands it on stdin (before:exec:), or serves them at http://ADDR/ (before:http:),\n" +
			"and answers an invalid call with the isError result that replaces it; nothing when\n" +
			"the call may go on. 2 on a bad command line or tool list.", interceptCommand},
	{"report", "[-json] [-top N] [-share F] [-min N] LOGFILE|-",
		"Reads the JSON lines a guard's logger wrote (WithLogger, or proxy -log), from LOGFILE or\n" +
			"stdin, and prints per tool the calls, refusals by kind and by path, repairs, values\n" +
			"sent outside an enum, and what to change in the tool's schema or description.\n" +
			"Lines it does not know are counted and skipped. Exit 0; 2 on a bad command line.", reportCommand},
}

// errUsage marks a mistake in the command line, reported with the usage text.
var errUsage = errors.New("bad usage")

// run executes one command and returns the exit status. -h or -help, alone or after a
// command, prints the usage to stdout and exits 0; a mistake prints it to stderr after the
// error, and exits 2.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr, commands...)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout, commands...)
		return 0
	}
	i := slices.IndexFunc(commands, func(c command) bool { return c.name == args[0] })
	if i < 0 {
		fmt.Fprintf(stderr, "mcpvalidate: %v: unknown command %q\n", errUsage, args[0])
		usage(stderr, commands...)
		return 2
	}
	c := commands[i]
	fs := newFlagSet(c)
	act := c.define(fs)
	var code int
	err := fs.Parse(args[1:])
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage(stdout, c)
		return 0
	case err != nil:
		err = fmt.Errorf("%w: %v", errUsage, err)
	default:
		code, err = act(stdin, stdout, stderr)
	}
	if err != nil {
		fmt.Fprintln(stderr, "mcpvalidate:", err)
		if errors.Is(err, errUsage) {
			usage(stderr, c)
		}
		return 2
	}
	return code
}

// newFlagSet returns c's flag set, which reports nothing itself: run does.
func newFlagSet(c command) *flag.FlagSet {
	fs := flag.NewFlagSet("mcpvalidate "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// usage writes the synopsis, description and flags of each of cs.
func usage(w io.Writer, cs ...command) {
	fmt.Fprintln(w, "usage:")
	for _, c := range cs {
		fmt.Fprintf(w, "\n  mcpvalidate %s %s\n\n", c.name, c.synopsis)
		for line := range strings.Lines(c.about) {
			fmt.Fprint(w, "  ", line)
		}
		fmt.Fprintln(w)
		fs := newFlagSet(c)
		c.define(fs)
		flags := 0
		fs.VisitAll(func(*flag.Flag) { flags++ })
		if flags > 0 {
			fmt.Fprintln(w)
		}
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}

func check(fs *flag.FlagSet) action {
	schemaPath := fs.String("schema", "", "the tool's inputSchema (a JSON file)")
	format := fs.Bool("format", false, "assert format (date-time, email, uuid, ...)")
	gateway := fs.Bool("gateway", false, "print messages in the gateway style")
	detailed := fs.Bool("detailed", false, "print messages that also say what was sent: its type, the name or value meant, the name sent for a missing one")
	return func(stdin io.Reader, stdout, _ io.Writer) (int, error) {
		if *schemaPath == "" || fs.NArg() > 1 || *gateway && *detailed {
			return 0, fmt.Errorf("%w: check needs -schema, at most one arguments file, and one style", errUsage)
		}
		schema, err := os.ReadFile(*schemaPath)
		if err != nil {
			return 0, err
		}
		formatter := guard.DefaultFormat
		switch {
		case *gateway:
			formatter = guard.GatewayFormat
		case *detailed:
			formatter = guard.DetailedFormat
		}
		var opts []guard.CompileOption
		if *detailed {
			opts = append(opts, guard.WithHints())
		}
		if *format {
			opts = append(opts, guard.WithFormatAssertion())
		}
		v, err := guard.Compile(schema, opts...)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", *schemaPath, err)
		}
		var data []byte
		if name := fs.Arg(0); name != "" && name != "-" {
			data, err = os.ReadFile(name)
		} else {
			data, err = io.ReadAll(stdin)
		}
		if err != nil {
			return 0, err
		}
		vs := v.Validate(data)
		for _, msg := range guard.Messages(vs, formatter) {
			fmt.Fprintln(stdout, msg)
		}
		if len(vs) > 0 {
			return 1, nil
		}
		return 0, nil
	}
}

func runSuite(fs *flag.FlagSet) action {
	format := fs.Bool("format", false, "assert format in every group (groups marked format_assertion always do)")
	return func(_ io.Reader, stdout, _ io.Writer) (int, error) {
		if fs.NArg() == 0 {
			return 0, fmt.Errorf("%w: suite needs at least one file", errUsage)
		}
		engine := func(g testsuite.Group) (func(json.RawMessage) bool, error) {
			var opts []guard.CompileOption
			if *format || g.FormatAssertion {
				opts = append(opts, guard.WithFormatAssertion())
			}
			v, err := guard.Compile(g.Schema, opts...)
			if err != nil {
				return nil, err
			}
			return func(data json.RawMessage) bool { return v.Validate(data) == nil }, nil
		}
		passed, failed := 0, 0
		for _, path := range fs.Args() {
			groups, err := testsuite.Load(path)
			if err != nil {
				return 0, err
			}
			results, counts := testsuite.Run(groups, engine)
			for _, r := range results {
				if r.Passed() {
					continue
				}
				why := fmt.Sprintf("want valid=%v, got %v", r.Want, r.Got)
				if r.Err != nil {
					why = "schema refused: " + r.Err.Error()
				}
				fmt.Fprintf(stdout, "FAIL %s: %s / %s: %s\n", path, r.Group, r.Test, why)
			}
			passed += counts.TestsPassed
			failed += counts.Tests - counts.TestsPassed
		}
		fmt.Fprintf(stdout, "%d passed, %d failed\n", passed, failed)
		if failed > 0 {
			return 1, nil
		}
		return 0, nil
	}
}
