package conformance

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// TestProvidersTableCorpus: the corpus column of docs/providers.md's table of servers is
// what LintFor finds in real-servers-public.json: how many of its tool schemas each target
// rejects.
func TestProvidersTableCorpus(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "providers.md"))
	if err != nil {
		t.Fatal(err)
	}
	stated := map[guard.Target]string{}
	for line := range strings.Lines(string(doc)) {
		cells := strings.Split(line, "|")
		if len(cells) == 6 && slices.Contains(guard.Targets(), guard.Target(strings.Trim(strings.TrimSpace(cells[1]), "`"))) {
			stated[guard.Target(strings.Trim(strings.TrimSpace(cells[1]), "`"))] = strings.TrimSpace(cells[3])
		}
	}
	for _, f := range loadCorpus(t) {
		if f.Name != "real-servers-public.json" {
			continue
		}
		for _, target := range guard.Targets() {
			rejected := 0
			for _, g := range f.Groups {
				advice, err := guard.LintFor(target, g.Schema)
				if err != nil {
					t.Fatalf("%s: %v", g.Description, err)
				}
				if slices.ContainsFunc(advice, func(a guard.Advice) bool { return a.Effect == guard.Rejects }) {
					rejected++
				}
			}
			if got := strconv.Itoa(rejected); stated[target] != got {
				t.Errorf("%s rejects %s of the corpus's %d tools; the doc says %q", target, got, len(f.Groups), stated[target])
			}
		}
	}
}
