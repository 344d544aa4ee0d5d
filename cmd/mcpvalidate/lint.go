package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mcpvalidate/mcpvalidate/guard"
	"github.com/mcpvalidate/mcpvalidate/guard/proxy"
)

func lint(fs *flag.FlagSet) action {
	target := fs.String("target", "", "review for what a model provider does with the schema: "+targetNames())
	upstream := fs.String("upstream", "", "review every tool of the streamable HTTP server at this endpoint URL")
	return func(_ io.Reader, stdout, stderr io.Writer) (int, error) {
		review := guard.Lint
		if *target != "" {
			t := guard.Target(*target)
			if !slices.Contains(guard.Targets(), t) {
				return 0, fmt.Errorf("%w: -target is one of %s, not %q", errUsage, targetNames(), *target)
			}
			review = func(schema []byte, _ ...guard.CompileOption) ([]guard.Advice, error) { return guard.LintFor(t, schema) }
		}
		switch {
		case *upstream != "" && fs.NArg() > 0:
			return 0, fmt.Errorf("%w: lint takes -upstream or a command, not both", errUsage)
		case *upstream != "":
			ctx, stop := listingContext()
			defer stop()
			list, err := proxy.ListTools(ctx, *upstream, nil)
			if err != nil {
				return 0, fmt.Errorf("%s: %w", *upstream, err)
			}
			return lintTools(list, review, *target, stdout)
		case schemaFile(fs):
			schema, err := os.ReadFile(fs.Arg(0))
			if err != nil {
				return 0, err
			}
			advice, err := review(schema)
			if err != nil {
				return 0, fmt.Errorf("%s: %w", fs.Arg(0), err)
			}
			for _, a := range advice {
				fmt.Fprintln(stdout, a)
			}
			return min(len(advice), 1), nil
		case fs.NArg() > 0:
			list, err := listCommand(fs.Args(), stderr)
			if err != nil {
				return 0, fmt.Errorf("%s: %w", fs.Arg(0), err)
			}
			return lintTools(list, review, *target, stdout)
		}
		return 0, fmt.Errorf("%w: lint needs one schema file, a server's command after --, or -upstream", errUsage)
	}
}

// schemaFile reports whether the arguments after the flags name a schema file: one
// argument, a file that is not executable. Others are a server's command.
func schemaFile(fs *flag.FlagSet) bool {
	if fs.NArg() != 1 {
		return false
	}
	info, err := os.Stat(fs.Arg(0))
	return err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 == 0
}

func targetNames() string {
	var names []string
	for _, t := range guard.Targets() {
		names = append(names, string(t))
	}
	return strings.Join(names, ", ")
}

// listingTime bounds how long lint waits for a server's tool list.
const listingTime = 120 * time.Second

// listingContext is the context of a listing: done when the command is told to stop, or
// after listingTime.
func listingContext() (context.Context, func()) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(ctx, listingTime)
	return ctx, func() { cancel(); stop() }
}

// listCommand runs the MCP server command over stdio and returns its tool list. The
// server goes with the listing, or with the command, however it ends.
func listCommand(command []string, stderr io.Writer) ([]byte, error) {
	ctx, stop := listingContext()
	defer stop()
	server := exec.CommandContext(ctx, command[0], command[1:]...)
	server.Stderr = stderr
	dieWithProxy(server)
	in, err := server.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := server.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := server.Start(); err != nil {
		return nil, err
	}
	list, err := proxy.ListToolsStdio(in, out)
	if err != nil {
		server.Process.Kill()
	}
	server.Wait() // the server ends with its stdin, as MCP's stdio transport has it
	return list, err
}

// lintTools reviews the inputSchema of each tool of a tools/list result and prints a block
// for each tool with advice, then a line that sums them up.
func lintTools(list []byte, review func([]byte, ...guard.CompileOption) ([]guard.Advice, error), target string, stdout io.Writer) (int, error) {
	var result struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(list, &result); err != nil {
		return 0, fmt.Errorf("the tool list: %w", err)
	}
	with, rejected, broken := 0, 0, 0
	for _, tool := range result.Tools {
		name := guard.ShownName(tool.Name)
		advice, err := review(tool.InputSchema)
		if err != nil {
			fmt.Fprintf(stdout, "%s: the inputSchema is broken: %v\n", name, err)
			broken++
			continue
		}
		if len(advice) == 0 {
			continue
		}
		with++
		if slices.ContainsFunc(advice, func(a guard.Advice) bool { return a.Effect == guard.Rejects }) {
			rejected++
		}
		fmt.Fprintln(stdout, name)
		for _, a := range advice {
			fmt.Fprintln(stdout, "  "+a.String())
		}
	}
	summary := fmt.Sprintf("%d tools: %d with advice", len(result.Tools), with)
	if target != "" {
		summary = fmt.Sprintf("%d tools: %d with findings, %d that %s rejects", len(result.Tools), with, rejected, target)
	}
	if broken > 0 {
		summary += fmt.Sprintf(", %d with a broken inputSchema", broken)
	}
	fmt.Fprintln(stdout, summary)
	switch {
	case broken > 0:
		return 2, nil
	case with > 0:
		return 1, nil
	}
	return 0, nil
}
