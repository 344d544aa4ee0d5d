package guard

import (
	"strconv"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// This file decides how a member name the model sent is shown to a reader: the model, in
// a refusal, or an operator, in a log. What the reader sees must be exactly one name, and
// no name may fill the reader's page.

const (
	nameShown = 64 // characters of a name shown whole; a longer name is elided
	nameHead  = 32 // characters shown from the start of an elided name
	nameTail  = 16 // and from its end
	pathShown = 20 // steps of a path shown whole; a longer path is elided
	pathEnds  = 10 // steps shown at each end of an elided path
)

// plainName reports whether a name is shown as it is, unquoted: ASCII letters, digits, '_'
// and '-', at most nameShown of them. Any other name is quoted, so that a name holding
// other scripts never reads as an ASCII one.
func plainName(s string) bool {
	if s == "" || len(s) > nameShown {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20 // lower case, for letters
		if !('a' <= c && c <= 'z' || '0' <= s[i] && s[i] <= '9' || s[i] == '_' || s[i] == '-') {
			return false
		}
	}
	return true
}

// appendQuotedName appends a name as appendVisible writes it. A name longer than nameShown
// characters shows its first nameHead and its last nameTail characters as two literals
// with the count of the others between them, which no single literal can be mistaken for:
//
//	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"…(15952 characters not shown)…"aaaaaaaaaaaaaaaa"
func appendQuotedName(b []byte, s string) []byte {
	n := len(s)
	if n > nameShown {
		n = utf8.RuneCountInString(s)
	}
	if n <= nameShown {
		return appendVisible(b, s)
	}
	head, tail := 0, len(s)
	for range nameHead {
		_, size := utf8.DecodeRuneInString(s[head:])
		head += size
	}
	for range nameTail {
		_, size := utf8.DecodeLastRuneInString(s[:tail])
		tail -= size
	}
	b = appendVisible(b, s[:head])
	b = append(b, "…("...)
	b = strconv.AppendInt(b, int64(n-nameHead-nameTail), 10)
	b = append(b, " characters not shown)…"...)
	return appendVisible(b, s[tail:])
}

// appendVisible appends s as a JSON string literal (so that it reads back as s) that shows
// which characters s holds, on one line. Besides quotes, backslashes and controls, it
// escapes as \uXXXX (a pair of them above U+FFFF):
//   - what prints nothing or nothing certain: format characters (U+200B, U+202E, U+FEFF,
//     U+00AD, tags), separators other than the ASCII space (U+00A0, U+3000, U+2028),
//     private-use, unassigned and non-characters, variation selectors and the other
//     default-ignorable characters, and U+2800, a blank Braille cell;
//   - characters that NFKC normalization changes, alone or with their neighbours: the
//     Kelvin sign U+212A (K), fullwidth letters, ligatures, and a letter followed by the
//     combining mark it composes with (e followed by U+0301 is not é);
//   - a combining mark at the start or after an escape, where it would combine with the
//     quote or with the escape's last character;
//   - in a name that mixes scripts (Latin with Cyrillic, Greek, Arabic…, or two of those;
//     Latin with Chinese, Japanese and Korean is not mixing), every letter and digit that
//     is neither Latin nor Chinese, Japanese or Korean: Cyrillic а in pаssword.
//
// Other characters are written as they are, so that città and 名前 stay readable.
// Invalid UTF-8 is written as U+FFFD, which is what a handler decoding it would see.
func appendVisible(b []byte, s string) []byte {
	mixed := mixesScripts(s)
	b = append(b, '"')
	escaped := true // after the opening quote, as after an escape, a mark is escaped
	var it norm.Iter
	it.InitString(norm.NFKC, s)
	for !it.Done() {
		start := it.Pos()
		stable := string(it.Next()) == s[start:it.Pos()]
		for _, r := range s[start:it.Pos()] {
			before := len(b)
			e, short := shortEscape(r)
			switch {
			case short:
				b = append(b, '\\', e)
			case ' ' <= r && r < utf8.RuneSelf && r != 0x7f:
				b = append(b, byte(r))
				escaped = false
				continue
			case r < utf8.RuneSelf || !stable || invisible(r) ||
				escaped && unicode.Is(unicode.M, r) || mixed && foreign(r):
				b = appendEscape(b, r)
			default:
				b = utf8.AppendRune(b, r)
			}
			escaped = b[before] == '\\'
		}
	}
	return append(b, '"')
}

func appendEscape(b []byte, r rune) []byte {
	if r > 0xffff {
		r -= 0x10000
		b = appendEscape(b, 0xd800+r>>10)
		r = 0xdc00 + r&0x3ff
	}
	const hex = "0123456789abcdef"
	return append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}

// invisible reports whether r prints nothing a reader could tell apart from nothing, from a
// space or from its neighbour.
func invisible(r rune) bool {
	return !unicode.IsPrint(r) || r == '\u2800' ||
		unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
}

// mixesScripts reports whether s holds foreign letters or digits together with Latin
// letters or with letters of yet another script.
func mixesScripts(s string) bool {
	latin := false
	var other *unicode.RangeTable // the script of the first foreign letter
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf || unicode.Is(unicode.Latin, r):
			latin = latin || unicode.IsLetter(r)
		case !foreign(r):
		case other == nil:
			other = scriptOf(r)
		case !unicode.Is(other, r):
			return true
		}
	}
	return latin && other != nil
}

// foreign reports whether r is a letter or digit of a script that mixes with Latin.
func foreign(r rune) bool {
	return r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) &&
		!unicode.Is(unicode.Latin, r) && !withLatin(r)
}

// withLatin reports whether r may stand beside Latin letters without mixing scripts: it
// is Chinese, Japanese or Korean, or of no script in particular (Common, such as the
// prolonged sound mark of ユーザー, or Inherited).
func withLatin(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Bopomofo,
		unicode.Common, unicode.Inherited)
}

func scriptOf(r rune) *unicode.RangeTable {
	for _, t := range unicode.Scripts {
		if unicode.Is(t, r) {
			return t
		}
	}
	return nil
}

// ShownName returns a name as a refusal shows it: as it is when plain (ASCII letters,
// digits, '_' and '-', at most 64), else as a JSON string literal that shows which
// characters it holds, elided past 64 characters.
func ShownName(s string) string {
	if plainName(s) {
		return s
	}
	return string(appendQuotedName(nil, s))
}

// visibleText returns s for a log line: as it is when it is printable ASCII without quotes
// or backslashes and at most nameShown bytes long, else quoted like a name.
func visibleText(s string) string {
	if len(s) <= nameShown {
		plain := true
		for i := 0; i < len(s) && plain; i++ {
			plain = ' ' <= s[i] && s[i] < 0x7f && s[i] != '"' && s[i] != '\\'
		}
		if plain {
			return s
		}
	}
	return string(appendQuotedName(nil, s))
}
