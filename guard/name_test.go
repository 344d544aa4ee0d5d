package guard

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNamesRenderAsWhatTheyAre: a name with characters a reader cannot see, or would read
// as other characters, renders with those characters escaped, in a path, in both message
// styles and read back; readable names outside ASCII stay readable, quoted.
func TestNamesRenderAsWhatTheyAre(t *testing.T) {
	cases := []struct {
		why, name, path string
	}{
		{"ASCII letters, digits, _ and -", "user_id-2", `user_id-2`},
		{"the letter K", "K", `K`},
		{"the Kelvin sign, NFKC K", "\u212a", `["\u212a"]`},
		{"the Angstrom sign, NFKC Å", "\u212b", `["\u212b"]`},
		{"Å itself", "\u00c5", `["Å"]`},
		{"A and a combining ring, NFKC Å", "A\u030a", `["A\u030a"]`},
		{"e and a combining acute, NFKC é", "e\u0301", `["e\u0301"]`},
		{"a mark that composes with nothing", "q\u0301", "[\"q\u0301\"]"},
		{"a combining mark first", "\u0301a", `["\u0301a"]`},
		{"a combining mark after an escape", "\u200b\u0301", `["\u200b\u0301"]`},
		{"right-to-left override", "ab\u202ecd", `["ab\u202ecd"]`},
		{"zero width space", "a\u200bb", `["a\u200bb"]`},
		{"byte order mark", "\ufeffa", `["\ufeffa"]`},
		{"soft hyphen", "a\u00adb", `["a\u00adb"]`},
		{"word joiner", "a\u2060b", `["a\u2060b"]`},
		{"a tag character (U+E0041)", "a\U000e0041", `["a\udb40\udc41"]`},
		{"no-break space", "a\u00a0b", `["a\u00a0b"]`},
		{"ideographic space", "a\u3000b", `["a\u3000b"]`},
		{"an ASCII space", "a b", `["a b"]`},
		{"line separator", "a\u2028b", `["a\u2028b"]`},
		{"next line, a C1 control", "a\u0085b", `["a\u0085b"]`},
		{"delete", "a\x7fb", `["a\u007fb"]`},
		{"private use", "a\ue000", `["a\ue000"]`},
		{"a non-character", "a\ufdd0", `["a\ufdd0"]`},
		{"unassigned", "a\u0378", `["a\u0378"]`},
		{"variation selector", "a\ufe0f", `["a\ufe0f"]`},
		{"combining grapheme joiner", "a\u034fb", `["a\u034fb"]`},
		{"Hangul filler", "\u3164", `["\u3164"]`},
		{"blank Braille cell", "\u2800", `["\u2800"]`},
		{"fullwidth letters", "ｎａｍｅ", `["\uff4e\uff41\uff4d\uff45"]`},
		{"a ligature", "\ufb01le", `["\ufb01le"]`},
		{"Cyrillic а among Latin", "pаssword", `["p\u0430ssword"]`},
		{"Greek ο among Latin", "rοot", `["r\u03bfot"]`},
		{"Cyrillic and Greek", "аο", `["\u0430\u03bf"]`},
		{"Latin and Arabic", "user_اسم", `["user_\u0627\u0633\u0645"]`},
		{"Italian", "città", `["città"]`},
		{"Japanese", "名前", `["名前"]`},
		{"Japanese with Latin", "ユーザーID", `["ユーザーID"]`},
		{"Russian with digits", "имя_2", `["имя_2"]`},
		{"Arabic", "اسم", `["اسم"]`},
		{"Greek", "όνομα", `["όνομα"]`},
	}
	seen := map[string]string{}
	for _, c := range cases {
		p := Path{{Name: "x"}, {Name: c.name}, {Index: 0, IsIndex: true}}
		want := "x" + c.path + "[0]"
		if c.path == c.name {
			want = "x." + c.path + "[0]"
		}
		if got := p.String(); got != want {
			t.Errorf("%s: %q renders as %s, want %s", c.why, c.name, got, want)
		}
		if other, dup := seen[c.path]; dup {
			t.Errorf("%q and %q both render as %s", other, c.name, c.path)
		}
		seen[c.path] = c.name
		if got := readBack(c.path); got != c.name {
			t.Errorf("%s: %s reads back as %q, want %q", c.why, c.path, got, c.name)
		}
		// At the top level, a quoted name stands alone, not in a path's brackets.
		alone := strings.TrimSuffix(strings.TrimPrefix(c.path, "["), "]")
		v := Violation{Kind: KindAdditional, Path: p[1:2]}
		for _, m := range []string{DefaultFormat(v), GatewayFormat(v)} {
			if !strings.Contains(m, alone) || strings.Contains(m, "[\"") {
				t.Errorf("%s: message %q does not show the name as %s", c.why, m, alone)
			}
		}
	}
}

// readBack reads a one-step path: a plain name, or ["…"], a JSON string literal.
func readBack(path string) string {
	inner, ok := strings.CutPrefix(path, "[")
	if !ok {
		return path
	}
	var name string
	if json.Unmarshal([]byte(strings.TrimSuffix(inner, "]")), &name) != nil {
		return "not a JSON string: " + inner
	}
	return name
}

// TestLongNamesAndPathsAreElidedVisibly: a name longer than nameShown characters shows its
// two ends around the count of characters left out, outside any literal; a path longer
// than pathShown steps shows its two ends around the count of steps left out.
func TestLongNamesAndPathsAreElidedVisibly(t *testing.T) {
	long := strings.Repeat("a", 40) + strings.Repeat("é", 15_940) + strings.Repeat("z", 20)
	got := Path{{Name: long}}.String()
	want := `["` + strings.Repeat("a", nameHead) + `"…(15952 characters not shown)…"` + strings.Repeat("z", nameTail) + `"]`
	if got != want {
		t.Errorf("a name of 16,000 characters renders as\n%s\nwant\n%s", got, want)
	}
	exact := strings.Repeat("b", nameShown)
	if got := (Path{{Name: exact}}).String(); got != exact {
		t.Errorf("a name of %d characters renders as %s", nameShown, got)
	}
	escaped := strings.Repeat("\u200b", nameShown+1)
	got = Path{{Name: escaped}}.String()
	want = `["` + strings.Repeat(`\u200b`, nameHead) + `"…(17 characters not shown)…"` + strings.Repeat(`\u200b`, nameTail) + `"]`
	if got != want {
		t.Errorf("%d zero width spaces render as %s, want %s", nameShown+1, got, want)
	}

	var deep Path
	for i := range 3 * pathShown {
		deep = append(deep, PathElem{Name: string(rune('a' + i%26))}, PathElem{Index: i, IsIndex: true})
	}
	got = deep.String()
	want = "a[0].b[1].c[2].d[3].e[4][…100 levels not shown…].d[55].e[56].f[57].g[58].h[59]"
	if got != want {
		t.Errorf("a path of %d steps renders as\n%s\nwant\n%s", len(deep), got, want)
	}
	if got := deep[:pathShown].String(); strings.Contains(got, "not shown") {
		t.Errorf("a path of %d steps is elided: %s", pathShown, got)
	}
}

// TestShownName: a name stands as it is when plain, quoted with its invisible characters
// escaped otherwise, and elided past nameShown characters.
func TestShownName(t *testing.T) {
	for in, want := range map[string]string{
		"weather":                   "weather",
		"get_weather-2":             "get_weather-2",
		"weather ":                  `"weather "`,
		"":                          `""`,
		"weather\u200b":             `"weather\u200b"`,
		"w\"x":                      `"w\"x"`,
		"météo":                     `"météo"`,
		strings.Repeat("x", 100000): `"` + strings.Repeat("x", nameHead) + `"…(99952 characters not shown)…"` + strings.Repeat("x", nameTail) + `"`,
	} {
		if got := ShownName(in); got != want {
			t.Errorf("ShownName(%.80q) = %s, want %s", in, got, want)
		}
	}
}
