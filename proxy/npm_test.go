package proxy

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// nodeModules names the node_modules directory that holds the published servers of
// e2e/proxy; e2e/proxy/run.sh sets it, and TestNPMServers runs only then.
const nodeModules = "MCPVALIDATE_E2E_NODE_MODULES"

// TestNPMServers drives published servers that are not ours and not Go (server-everything,
// server-memory, server-filesystem, from npm) with go-sdk's client, direct and through the
// proxy over stdio: the same tools, the same answers to valid calls, and invalid calls
// refused with our message.
func TestNPMServers(t *testing.T) {
	modules := os.Getenv(nodeModules)
	if modules == "" {
		t.Skip("set " + nodeModules + " to e2e/proxy's node_modules (e2e/proxy/run.sh does)")
	}
	ctx := context.Background()
	files := t.TempDir()
	if err := os.WriteFile(filepath.Join(files, "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	js := func(name string) string {
		return filepath.Join(modules, "@modelcontextprotocol", name, "dist", "index.js")
	}
	cases := []struct {
		server  string
		args    []string
		valid   [][2]string
		invalid [][3]string
	}{
		{"server-everything", []string{"stdio"},
			[][2]string{{"echo", `{"message":"hi"}`}, {"get-sum", `{"a":1,"b":2}`}},
			[][3]string{{"echo", `{"message":1}`, "property 'message' must be string"}, {"get-sum", `{"a":1}`, "missing required property 'b'"}}},
		{"server-memory", nil,
			[][2]string{{"read_graph", `{}`}, {"search_nodes", `{"query":"x"}`}},
			[][3]string{{"create_entities", `{"entities":"Ada"}`, "property 'entities' must be array"}}},
		{"server-filesystem", []string{files},
			[][2]string{{"list_directory", `{"path":"` + files + `"}`}, {"read_text_file", `{"path":"` + filepath.Join(files, "a.txt") + `"}`}},
			[][3]string{{"write_file", `{"path":"` + filepath.Join(files, "b.txt") + `","content":7}`, "property 'content' must be string"}}},
	}
	for _, c := range cases {
		t.Run(c.server, func(t *testing.T) {
			memory := "MEMORY_FILE_PATH=" + filepath.Join(t.TempDir(), "memory.jsonl")
			directCmd := exec.Command("node", append([]string{js(c.server)}, c.args...)...)
			directCmd.Env = append(os.Environ(), memory)
			throughCmd := proxied("node", append([]string{js(c.server)}, c.args...)...)
			throughCmd.Env = append(throughCmd.Env, "MEMORY_FILE_PATH="+filepath.Join(t.TempDir(), "memory.jsonl"))
			direct, through := connect(t, directCmd), connect(t, throughCmd)
			want, err := direct.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := through.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("tools through the proxy differ from the tools direct")
			}
			for _, v := range c.valid {
				if got, want := callJSON(t, through, v[0], v[1]), callJSON(t, direct, v[0], v[1]); got != want {
					t.Errorf("%s %s: through the proxy\n%s\ndirect\n%s", v[0], v[1], got, want)
				}
			}
			for _, v := range c.invalid {
				got := callJSON(t, through, v[0], v[1])
				if !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "Invalid arguments: ") || !strings.Contains(got, v[2]) {
					t.Errorf("%s %s: got %s, want %q", v[0], v[1], got, v[2])
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(files, "b.txt")); err == nil {
		t.Error("an invalid write_file wrote its file through the proxy")
	}
}
