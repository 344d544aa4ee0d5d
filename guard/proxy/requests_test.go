package proxy

import (
	"slices"
	"strings"
	"testing"
)

// TestRequests: requests in flight are found and taken by their keys, as strings or
// bytes, short and long, whichever of them the table holds first, and counted and listed
// whatever it holds; finding and taking one by bytes copies nothing.
func TestRequests(t *testing.T) {
	long := `"` + strings.Repeat("x", 40) // held in the request by its string only
	edge := strings.Repeat("e", 23)       // keys of 24 bytes, held in the request, and of 25, not
	keys := []string{"7", long, "\x003\x00" + `"abc`, "8", long + "y", edge + "a", edge + "b", edge + "aa", edge + "ab"}
	var table requests
	for _, k := range keys {
		if find(&table, k) != nil || find(&table, []byte(k)) != nil {
			t.Fatalf("%q found before it was put", k)
		}
		q := &pending{}
		q.setKey(k)
		table.put(q)
		if find(&table, k) != q || find(&table, []byte(k)) != q {
			t.Fatalf("%q not found once put", k)
		}
	}
	if table.len() != len(keys) {
		t.Errorf("len %d, want %d", table.len(), len(keys))
	}
	var listed []string
	for q := range table.all() {
		listed = append(listed, q.key)
	}
	if slices.Sort(listed); !slices.Equal(listed, slices.Sorted(slices.Values(keys))) {
		t.Errorf("all listed %q, want %q", listed, keys)
	}
	if find(&table, "7x") != nil || find(&table, long[:30]) != nil || take(&table, "9") != nil {
		t.Error("a key not put found")
	}
	first := table.first
	if q := take(&table, []byte(first.key)); q != first || table.first != nil || table.len() != len(keys)-1 {
		t.Fatalf("taking the first: %v, first now %v, len %d", q, table.first, table.len())
	}
	again := &pending{}
	again.setKey("9")
	if table.put(again); table.first != again || find(&table, "9") != again {
		t.Error("a request put while none is first is not held first")
	}
	if q := take(&table, long); q == nil || q.key != long || find(&table, long) != nil {
		t.Errorf("taking a long key from the map: %v", q)
	}
	b := []byte(long + "y")
	if n := testing.AllocsPerRun(100, func() { find(&table, b); find(&table, []byte("9")) }); n != 0 {
		t.Errorf("finding by bytes: %v allocations, want 0", n)
	}
	for _, k := range []string{"9", "8", long + "y", "\x003\x00" + `"abc`, edge + "a", edge + "b", edge + "aa", edge + "ab"} {
		if take(&table, []byte(k)) == nil {
			t.Errorf("%q not taken", k)
		}
	}
	if table.len() != 0 || table.first != nil {
		t.Errorf("%d left after all were taken", table.len())
	}
}
