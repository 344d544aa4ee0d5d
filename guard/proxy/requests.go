package proxy

import "iter"

// requests is a session's table of the client's requests in flight, by key (exchange.key).
// A client most often has one request in flight at a time: the first is held in the
// table itself, its key in the request, so that finding it, as every answer does, reads no
// map and no other memory; more go to a map.
type requests struct {
	first *pending            // nil when none is held so
	more  map[string]*pending // made when a second request is in flight at once
}

// find returns the request of key in t, or nil; key may be bytes, compared as they
// are, without a copy.
func find[K string | []byte](t *requests, key K) *pending {
	if q := t.first; q != nil && keyed(q, key) {
		return q
	}
	return t.more[string(key)]
}

// put adds q, whose key (setKey) is not in the table.
func (t *requests) put(q *pending) {
	if t.first == nil {
		t.first = q
		return
	}
	if t.more == nil {
		t.more = map[string]*pending{}
	}
	t.more[q.key] = q
}

// take removes the request of key and returns it, or nil.
func take[K string | []byte](t *requests, key K) *pending {
	q := find(t, key)
	switch {
	case q == nil:
	case q == t.first:
		t.first = nil
	default:
		delete(t.more, q.key)
	}
	return q
}

func (t *requests) len() int {
	if t.first == nil {
		return len(t.more)
	}
	return 1 + len(t.more)
}

// all yields every request in the table.
func (t *requests) all() iter.Seq[*pending] {
	return func(yield func(*pending) bool) {
		if q := t.first; q != nil && !yield(q) {
			return
		}
		for _, q := range t.more {
			if !yield(q) {
				return
			}
		}
	}
}

// setKey makes key q's key in the table, its bytes held in q itself when they fit.
func (q *pending) setKey(key string) {
	q.key = key
	copy(q.keyBytes[:], key)
}

// keyed reports whether q's key is key, comparing the bytes q holds when the key fits
// (its length read from q.key's header, its bytes not).
func keyed[K string | []byte](q *pending, key K) bool {
	if n := len(q.key); n <= len(q.keyBytes) {
		return string(q.keyBytes[:n]) == string(key)
	}
	return q.key == string(key)
}
