package guard

import (
	"strings"

	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
	"github.com/mcpvalidate/mcpvalidate/guard/internal/regex"
)

// The formats asserted under WithFormatAssertion, and by default in draft-07 and older.
// Each check gives the full engine's verdict (santhosh-tekuri/jsonschema v6, format.go),
// so that both engines agree on what a date-time or an email is, without its cost: the
// engine's Validate allocates a few hundred bytes per string, which an array of one-letter
// strings turns into 160 bytes per byte of arguments. These checks read the string once and
// allocate nothing. Where the engine's verdict is that of a Go parser (time.Parse,
// strconv.Atoi, netip.ParseAddr, net/url.Parse), the check follows that parser's rules,
// including what it lets through (a sign before an IPv4 decimal, an unescaped control
// character in a fragment).

// formatChecks holds the check of each format the full engine knows; others are
// annotations whatever the options say.
var formatChecks = map[string]func(string) bool{
	"date": isDate, "time": isTime, "date-time": isDateTime, "duration": isDuration,
	"period": isPeriod, "ipv4": isIPv4, "ipv6": isIPv6, "hostname": isHostname,
	"email": isEmail, "uri": isAbsoluteURI, "iri": isAbsoluteURI, "uri-reference": isURIReference,
	"iri-reference": isURIReference, "uri-template": isURITemplate, "json-pointer": isJSONPointer,
	"relative-json-pointer": isRelativeJSONPointer, "uuid": isUUID, "semver": isSemver,
	"regex": regex.Valid,
}

// formatChecker returns the check of a format, or nil for a format that is an annotation.
func formatChecker(name string) func(string) bool { return formatChecks[name] }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z'
}

// digits counts the decimal digits s starts with.
func digits(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

// readInt reads s as strconv.Atoi does: an optional sign, then only digits. Values beyond
// 2^31 are held there, which no caller tells apart from overflow.
func readInt(s string) (int, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	if s == "" || digits(s) != len(s) {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		n = min(n*10+int(s[i]-'0'), 1<<31)
	}
	if neg {
		n = -n
	}
	return n, true
}

// isDate: time.Parse with the layout 2006-01-02.
func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9} {
		if !isDigit(s[i]) {
			return false
		}
	}
	year := int(s[0]-'0')*1000 + int(s[1]-'0')*100 + int(s[2]-'0')*10 + int(s[3]-'0')
	month := int(s[5]-'0')*10 + int(s[6]-'0')
	day := int(s[8]-'0')*10 + int(s[9]-'0')
	return 1 <= month && month <= 12 && 1 <= day && day <= daysIn(month, year)
}

func daysIn(month, year int) int {
	switch {
	case month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0):
		return 29
	case month == 2:
		return 28
	case month == 4 || month == 6 || month == 9 || month == 11:
		return 30
	}
	return 31
}

// isTime: hh:mm:ss, an optional fraction, then Z or an offset; each number is read by
// strconv.Atoi, sign and all. A leap second is one at 23:59 UTC.
func isTime(s string) bool {
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return false
	}
	h, m, sec, ok := hms(s[:8])
	if !ok || h > 23 || m > 59 || sec > 60 {
		return false
	}
	s = s[8:]
	if rest, ok := strings.CutPrefix(s, "."); ok {
		n := digits(rest)
		if n == 0 {
			return false
		}
		s = rest[n:]
	}
	if s != "z" && s != "Z" {
		if len(s) != 6 || s[0] != '+' && s[0] != '-' || s[3] != ':' {
			return false
		}
		zh, zm, ok := hourMinute(s[1:])
		if !ok || zh > 23 || zm > 59 {
			return false
		}
		if s[0] == '+' {
			zh, zm = -zh, -zm
		}
		hm := (h*60 + m) + zh*60 + zm
		if hm < 0 {
			hm += 24 * 60
		}
		h, m = hm/60, hm%60
	}
	return sec < 60 || h == 23 && m == 59
}

// hms reads the three numbers of hh:mm:ss split at its first two colons.
func hms(s string) (h, m, sec int, ok bool) {
	first, rest, _ := strings.Cut(s, ":")
	second, third, _ := strings.Cut(rest, ":")
	h, ok1 := readInt(first)
	m, ok2 := readInt(second)
	sec, ok3 := readInt(third)
	return h, m, sec, ok1 && ok2 && ok3 && h >= 0 && m >= 0 && sec >= 0
}

// hourMinute reads hh:mm split at its first colon.
func hourMinute(s string) (h, m int, ok bool) {
	first, second, _ := strings.Cut(s, ":")
	h, ok1 := readInt(first)
	m, ok2 := readInt(second)
	return h, m, ok1 && ok2 && h >= 0 && m >= 0
}

func isDateTime(s string) bool {
	return len(s) >= 20 && (s[10] == 't' || s[10] == 'T') && isDate(s[:10]) && isTime(s[11:])
}

// isDuration: P, then weeks alone, or years, months and days, then T and hours, minutes and
// seconds, each unit at most once and in order.
func isDuration(s string) bool {
	s, ok := strings.CutPrefix(s, "P")
	if !ok || s == "" {
		return false
	}
	if weeks, ok := strings.CutSuffix(s, "W"); ok {
		return weeks != "" && digits(weeks) == len(weeks)
	}
	date, clock, hasT := strings.Cut(s, "T")
	if !hasT {
		return durationUnits(date, "YMD")
	}
	return clock != "" && !strings.Contains(clock, "T") && durationUnits(date, "YMD") && durationUnits(clock, "HMS")
}

// durationUnits reads numbers each followed by one of units, in their order.
func durationUnits(s, units string) bool {
	for s != "" {
		n := digits(s)
		if n == 0 || n == len(s) {
			return false
		}
		j := strings.IndexByte(units, s[n])
		if j < 0 {
			return false
		}
		units, s = units[j+1:], s[n+1:]
	}
	return true
}

// isPeriod: start/end, start/duration or duration/end.
func isPeriod(s string) bool {
	start, end, ok := strings.Cut(s, "/")
	switch {
	case !ok:
		return false
	case strings.HasPrefix(start, "P"):
		return isDuration(start) && isDateTime(end)
	case strings.HasPrefix(end, "P"):
		return isDateTime(start) && isDuration(end)
	}
	return isDateTime(start) && isDateTime(end)
}

// isIPv4: four decimals from 0 to 255 read by strconv.Atoi, without a leading zero (a sign
// may precede one).
func isIPv4(s string) bool {
	for i := range 4 {
		field, rest, found := strings.Cut(s, ".")
		if found == (i == 3) {
			return false
		}
		if len(field) > 1 && field[0] == '0' {
			return false
		}
		if n, ok := readInt(field); !ok || n < 0 || n > 255 {
			return false
		}
		s = rest
	}
	return true
}

// isIPv6: netip.ParseAddr's IPv6 addresses, without a zone.
func isIPv6(s string) bool {
	if i := strings.IndexAny(s, ".:%"); i < 0 || s[i] != ':' || strings.IndexByte(s[i:], '%') >= 0 {
		return false // an IPv4 address, a zone, or no address
	}
	groups, ellipsis := 0, false // 16-bit groups read
	if strings.HasPrefix(s, "::") {
		ellipsis, s = true, s[2:]
		if s == "" {
			return true
		}
	}
	for groups < 8 {
		n := 0
		for n < len(s) && jsontext.IsHex(s[n]) {
			if n++; n > 4 {
				return false
			}
		}
		if n == 0 {
			return false
		}
		if n < len(s) && s[n] == '.' {
			// An IPv4 address in place of the last two groups.
			if !ellipsis && groups != 6 || groups > 6 || !isEmbeddedIPv4(s) {
				return false
			}
			groups, s = groups+2, ""
			break
		}
		groups++
		if s = s[n:]; s == "" {
			break
		}
		if s[0] != ':' || len(s) == 1 {
			return false
		}
		if s = s[1:]; s[0] == ':' {
			if ellipsis {
				return false
			}
			ellipsis, s = true, s[1:]
			if s == "" {
				break
			}
		}
	}
	return s == "" && (groups == 8) != ellipsis
}

// isEmbeddedIPv4 reads an IPv4 address as netip does: four decimals to 255, no leading zero.
func isEmbeddedIPv4(s string) bool {
	for i := range 4 {
		field, rest, found := strings.Cut(s, ".")
		n, ok := readInt(field)
		if found == (i == 3) || !ok || digits(field) != len(field) || len(field) > 1 && field[0] == '0' || n > 255 {
			return false
		}
		s = rest
	}
	return true
}

// isHostname: labels of 1 to 63 letters, digits and hyphens, not at either end, 253
// characters in all; a trailing dot is allowed.
func isHostname(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if len(s) > 253 {
		return false
	}
	for {
		label, rest, found := strings.Cut(s, ".")
		if len(label) < 1 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; c != '-' && !isAlnum(c) {
				return false
			}
		}
		if !found {
			return true
		}
		s = rest
	}
}

// isEmail: a local part, quoted or made of atoms, an at sign, and a hostname or an IP
// address in brackets.
func isEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if len(s) > 254 || at < 0 || at > 64 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 1 && local[0] == '"' && local[len(local)-1] == '"' {
		if strings.ContainsAny(local[1:len(local)-1], `\"`) {
			return false
		}
	} else if !isAtoms(local) {
		return false
	}
	if len(domain) >= 2 && domain[0] == '[' && domain[len(domain)-1] == ']' {
		ip := domain[1 : len(domain)-1]
		if v6, ok := strings.CutPrefix(ip, "IPv6:"); ok {
			return isIPv6(v6)
		}
		return isIPv4(ip)
	}
	return isHostname(domain)
}

// isAtoms: an unquoted local part, dot-separated runs of letters, digits and the symbols
// email allows.
func isAtoms(local string) bool {
	if strings.HasPrefix(local, ".") || strings.HasSuffix(local, ".") || strings.Contains(local, "..") {
		return false
	}
	for i := 0; i < len(local); i++ {
		if c := local[i]; !isAlnum(c) && strings.IndexByte(".!#$%&'*+-/=?^_`{|}~", c) < 0 {
			return false
		}
	}
	return true
}

// isJSONPointer: empty, or a slash and tokens in which each ~ is followed by 0 or 1.
func isJSONPointer(s string) bool {
	if s == "" {
		return true
	}
	if s[0] != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 == len(s) || s[i+1] != '0' && s[i+1] != '1') {
			return false
		}
	}
	return true
}

// isRelativeJSONPointer: a whole number without a leading zero, then # or a JSON pointer.
func isRelativeJSONPointer(s string) bool {
	n := digits(s)
	if n == 0 || n > 1 && s[0] == '0' {
		return false
	}
	return s[n:] == "#" || isJSONPointer(s[n:])
}

// isUUID: 8-4-4-4-12 hexadecimal digits.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if s[i] != '-' {
				return false
			}
		} else if !jsontext.IsHex(s[i]) {
			return false
		}
	}
	return true
}

// isSemver: major.minor.patch, then an optional pre-release and build, as semver.org's
// grammar has them.
func isSemver(s string) bool {
	if i := strings.IndexByte(s, '+'); i >= 0 {
		if !semverIdentifiers(s[i+1:], false) {
			return false
		}
		s = s[:i]
	}
	if i := strings.IndexByte(s, '-'); i >= 0 {
		if !semverIdentifiers(s[i+1:], true) {
			return false
		}
		s = s[:i]
	}
	for i := range 3 {
		version, rest, found := strings.Cut(s, ".")
		if found == (i == 2) || version == "" || len(version) > 1 && version[0] == '0' || digits(version) != len(version) {
			return false
		}
		s = rest
	}
	return true
}

// semverIdentifiers reads dot-separated identifiers of letters, digits and hyphens; a
// pre-release's numeric ones have no leading zero.
func semverIdentifiers(s string, pre bool) bool {
	for {
		id, rest, found := strings.Cut(s, ".")
		if id == "" || pre && len(id) > 1 && id[0] == '0' && digits(id) == len(id) {
			return false
		}
		for i := 0; i < len(id); i++ {
			if c := id[i]; c != '-' && !isAlnum(c) {
				return false
			}
		}
		if !found {
			return true
		}
		s = rest
	}
}

// isAbsoluteURI: a URI with a scheme, as net/url.Parse reads it.
func isAbsoluteURI(s string) bool {
	u, ok := parseURI(s)
	return ok && u.scheme
}

// isURIReference: a URI, absolute or relative, without a backslash.
func isURIReference(s string) bool {
	_, ok := parseURI(s)
	return ok && strings.IndexByte(s, '\\') < 0
}

// isURITemplate: a URI whose path, where net/url keeps it as written (RawPath), has in
// each segment braces that open and close in turn, percent-encoded ones included.
func isURITemplate(s string) bool {
	u, ok := parseURI(s)
	if !ok || u.path == "" || defaultEncodedPath(u.path) {
		return ok
	}
	for rest, more := u.path, true; more; {
		var seg string
		seg, rest, more = strings.Cut(rest, "/")
		open := false
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if c == '%' {
				c = unhexByte(seg[i+1])<<4 | unhexByte(seg[i+2])
				i += 2
			}
			if c == '{' || c == '}' {
				if open != (c == '}') {
					return false
				}
				open = !open
			}
		}
		if open {
			return false
		}
	}
	return true
}

func unhexByte(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// uriParts is what the URI checks need of net/url's reading of a URI.
type uriParts struct {
	scheme bool
	path   string // the path as written, after the authority; empty for an opaque URI
}

// parseURI follows net/url.Parse, which the full engine calls, and the engine's own check
// that a host with a colon is an IPv6 address in brackets.
func parseURI(s string) (uriParts, bool) {
	s, frag, hasFrag := strings.Cut(s, "#")
	if hasFrag && !validEscapes(frag) {
		return uriParts{}, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] == 0x7f {
			return uriParts{}, false
		}
	}
	var u uriParts
	rest := s
	if n := schemeLen(s); n > 0 {
		u.scheme, rest = true, s[n+1:]
	} else if n == 0 {
		return uriParts{}, false // a colon first: a missing scheme
	}
	rest, _, _ = strings.Cut(rest, "?")
	if !strings.HasPrefix(rest, "/") {
		if u.scheme {
			return u, true // opaque: not read further
		}
		if seg, _, _ := strings.Cut(rest, "/"); strings.IndexByte(seg, ':') >= 0 {
			return uriParts{}, false // a relative path whose first segment looks like a scheme
		}
	}
	if strings.HasPrefix(rest, "//") && (u.scheme || !strings.HasPrefix(rest, "///")) {
		authority := rest[2:]
		rest = ""
		if i := strings.IndexByte(authority, '/'); i >= 0 {
			authority, rest = authority[:i], authority[i:]
		}
		if !validAuthority(authority) {
			return uriParts{}, false
		}
	}
	u.path = rest
	return u, validEscapes(rest)
}

// schemeLen returns the length of the scheme s starts with, [a-zA-Z][a-zA-Z0-9+.-]* before
// a colon; -1 for none, and 0 when s starts with a colon.
func schemeLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case isDigit(c) || c == '+' || c == '-' || c == '.':
			if i == 0 {
				return -1
			}
		case c == ':':
			return i
		default:
			return -1
		}
	}
	return -1
}

// validEscapes reports whether each % in s starts an escape of two hexadecimal digits.
func validEscapes(s string) bool {
	for i := strings.IndexByte(s, '%'); i >= 0; i = strings.IndexByte(s, '%') {
		if i+2 >= len(s) || !jsontext.IsHex(s[i+1]) || !jsontext.IsHex(s[i+2]) {
			return false
		}
		s = s[i+3:]
	}
	return true
}

// validAuthority reads [userinfo@]host[:port].
func validAuthority(authority string) bool {
	host := authority
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		user := authority[:i]
		host = authority[i+1:]
		for j := 0; j < len(user); j++ {
			if c := user[j]; !isAlnum(c) && strings.IndexByte("-._:~!$&'()*+,;=%@", c) < 0 {
				return false
			}
		}
		if !validEscapes(user) {
			return false
		}
	}
	return validHost(host)
}

// validHost reads host[:port]: an IPv6 address in brackets, or a name of the characters
// net/url allows in a host, where only bytes beyond ASCII may be percent-encoded. A name
// with a colon past the port's is refused, by net/url or by the engine.
func validHost(host string) bool {
	if i := strings.LastIndexByte(host, '['); i > 0 {
		return false
	} else if i == 0 {
		end := strings.LastIndexByte(host, ']')
		return end >= 0 && validPort(host[end+1:]) && isIPv6(host[1:end])
	}
	if i := strings.IndexByte(host, ':'); i >= 0 {
		if strings.LastIndexByte(host, ':') != i || !validPort(host[i:]) {
			return false
		}
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		switch {
		case c == '%':
			if i+2 >= len(host) || !jsontext.IsHex(host[i+1]) || !jsontext.IsHex(host[i+2]) || unhexByte(host[i+1]) < 8 && host[i:i+3] != "%25" {
				return false
			}
			i += 2
		case c < 0x80 && !isAlnum(c) && strings.IndexByte("!$&'()*+,;=:[]<>\"-_.~", c) < 0:
			return false
		}
	}
	return true
}

// validPort: empty, or a colon and digits.
func validPort(port string) bool {
	return port == "" || port[0] == ':' && digits(port[1:]) == len(port)-1
}

// defaultEncodedPath reports whether net/url would write the path it reads from p as p
// itself, and so keep no RawPath: every byte one it leaves unescaped, every escape one of a
// byte it escapes, in upper-case hexadecimal.
func defaultEncodedPath(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '%' {
			if !pathByte(c) {
				return false
			}
			continue
		}
		hi, lo := p[i+1], p[i+2]
		if 'a' <= hi && hi <= 'f' || 'a' <= lo && lo <= 'f' || pathByte(unhexByte(hi)<<4|unhexByte(lo)) {
			return false
		}
		i += 2
	}
	return true
}

// pathByte reports whether net/url leaves c unescaped in a path.
func pathByte(c byte) bool {
	return isAlnum(c) || strings.IndexByte("-_.~$&+,/:;=@", c) >= 0
}
