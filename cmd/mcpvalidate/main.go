// Command mcpvalidate checks tool arguments against an MCP tool's inputSchema, runs files
// in the JSON-Schema-Test-Suite format, and reviews schemas.
//
//	mcpvalidate check -schema S.json [ARGS.json|-]   violations, one a line; exit 0 valid, 1 invalid, 2 error
//	mcpvalidate suite [-format] FILE.json...          failing tests, then "N passed, M failed"; exit 1 on failures
//	mcpvalidate lint S.json                           advice, one a line; exit 0 none, 1 advice, 2 bad schema
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mcpvalidate/mcpvalidate"
	"github.com/mcpvalidate/mcpvalidate/internal/suite"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage:
  mcpvalidate check -schema S.json [-format] [-gateway|-detailed] [ARGS.json|-]
  mcpvalidate suite [-format] FILE.json...
  mcpvalidate lint S.json
`

// errUsage marks a mistake in the command line, reported with the usage text.
var errUsage = errors.New("bad usage")

// run executes one command and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var code int
	var err error
	switch args[0] {
	case "check":
		code, err = check(args[1:], stdin, stdout)
	case "suite":
		code, err = runSuite(args[1:], stdout)
	case "lint":
		code, err = lint(args[1:], stdout)
	default:
		err = fmt.Errorf("%w: unknown command %q", errUsage, args[0])
	}
	if err != nil {
		fmt.Fprintln(stderr, "mcpvalidate:", err)
		if errors.Is(err, errUsage) {
			fmt.Fprint(stderr, usage)
		}
		return 2
	}
	return code
}

func flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return nil
}

func check(args []string, stdin io.Reader, stdout io.Writer) (int, error) {
	fs := flags("check")
	schemaPath := fs.String("schema", "", "the tool's inputSchema (a JSON file)")
	format := fs.Bool("format", false, "assert format (date-time, email, uuid, ...)")
	gateway := fs.Bool("gateway", false, "print messages in the gateway style")
	detailed := fs.Bool("detailed", false, "print messages that also say what was sent: its type, the name or value meant")
	if err := parse(fs, args); err != nil {
		return 0, err
	}
	if *schemaPath == "" || fs.NArg() > 1 || *gateway && *detailed {
		return 0, fmt.Errorf("%w: check needs -schema, at most one arguments file, and one style", errUsage)
	}
	schema, err := os.ReadFile(*schemaPath)
	if err != nil {
		return 0, err
	}
	formatter := mcpvalidate.DefaultFormat
	switch {
	case *gateway:
		formatter = mcpvalidate.GatewayFormat
	case *detailed:
		formatter = mcpvalidate.DetailedFormat
	}
	opts := []mcpvalidate.Option{mcpvalidate.WithFormatter(formatter)}
	if *format {
		opts = append(opts, mcpvalidate.WithFormatAssertion())
	}
	v, err := mcpvalidate.Compile(schema, opts...)
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
	for _, msg := range mcpvalidate.Messages(vs, formatter) {
		fmt.Fprintln(stdout, msg)
	}
	if len(vs) > 0 {
		return 1, nil
	}
	return 0, nil
}

func runSuite(args []string, stdout io.Writer) (int, error) {
	fs := flags("suite")
	format := fs.Bool("format", false, "assert format in every group (groups marked format_assertion always do)")
	if err := parse(fs, args); err != nil {
		return 0, err
	}
	if fs.NArg() == 0 {
		return 0, fmt.Errorf("%w: suite needs at least one file", errUsage)
	}
	engine := func(g suite.Group) (func(json.RawMessage) bool, error) {
		var opts []mcpvalidate.Option
		if *format || g.FormatAssertion {
			opts = append(opts, mcpvalidate.WithFormatAssertion())
		}
		v, err := mcpvalidate.Compile(g.Schema, opts...)
		if err != nil {
			return nil, err
		}
		return func(data json.RawMessage) bool { return v.Validate(data) == nil }, nil
	}
	passed, failed := 0, 0
	for _, path := range fs.Args() {
		groups, err := suite.Load(path)
		if err != nil {
			return 0, err
		}
		results, counts := suite.Run(groups, engine)
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

func lint(args []string, stdout io.Writer) (int, error) {
	fs := flags("lint")
	if err := parse(fs, args); err != nil {
		return 0, err
	}
	if fs.NArg() != 1 {
		return 0, fmt.Errorf("%w: lint needs one schema file", errUsage)
	}
	schema, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return 0, err
	}
	advice, err := mcpvalidate.Lint(schema)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	for _, a := range advice {
		fmt.Fprintln(stdout, a)
	}
	if len(advice) > 0 {
		return 1, nil
	}
	return 0, nil
}
