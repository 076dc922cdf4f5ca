package facetindex

import (
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// chunkSize is the length a chunk of the sorted terms is split at, twice
// over: an insertion moves at most that many ids, and the chunks are few.
const chunkSize = 256

// terms is the dictionary of the words a text query matches: each term
// once, with the products holding it, in byte order so that a query word
// finds the terms it is a prefix of as a range. It holds no pointer per
// term (the bytes live in one arena, the order in chunks of ids), so that
// a million terms cost the collector nothing to scan.
type terms struct {
	arena []byte
	off   []uint32
	ln    []uint32 // 0 for an id free for reuse
	post  postings
	// names holds, by the same ids, the products whose name holds the
	// term: a subset of post, what a relevance page's rank 1 unites.
	names postings
	// labels holds, likewise, the products whose label (vendor, type,
	// tags) holds the term: with names, what a relevance page's second
	// rank of a level unites.
	labels  postings
	chunks  [][]uint32
	freeIDs []uint32
	garbage int // bytes of the arena no term uses
	// build finds the terms while a builder adds products; the chunks are
	// sorted once at its end.
	build map[string]uint32
}

func (t *terms) text(id uint32) string {
	n := t.ln[id]
	if n == 0 {
		return ""
	}
	return unsafe.String(&t.arena[t.off[id]], n)
}

// search returns where w is or would be in the order: a chunk and a
// position in it (len(t.chunks) when w is past every term).
func (t *terms) search(w string) (c, i int) {
	c = sort.Search(len(t.chunks), func(i int) bool {
		ch := t.chunks[i]
		return t.text(ch[len(ch)-1]) >= w
	})
	if c == len(t.chunks) {
		return c, 0
	}
	ch := t.chunks[c]
	i = sort.Search(len(ch), func(i int) bool { return t.text(ch[i]) >= w })
	return c, i
}

// intern returns the id of term w, adding it when new. w is not empty.
func (t *terms) intern(w string) uint32 {
	if t.build != nil {
		if id, ok := t.build[w]; ok {
			return id
		}
		id := t.alloc(w)
		t.build[t.text(id)] = id
		return id
	}
	c, i := t.search(w)
	if c < len(t.chunks) && t.text(t.chunks[c][i]) == w {
		return t.chunks[c][i]
	}
	id := t.alloc(w)
	if len(t.chunks) == 0 {
		t.chunks = [][]uint32{{id}}
		return id
	}
	if c == len(t.chunks) {
		c--
		i = len(t.chunks[c])
	}
	ch := slices.Insert(t.chunks[c], i, id)
	if len(ch) > 2*chunkSize {
		tail := slices.Clone(ch[chunkSize:])
		ch = slices.Clip(ch[:chunkSize])
		t.chunks = slices.Insert(t.chunks, c+1, tail)
	}
	t.chunks[c] = ch
	return id
}

func (t *terms) alloc(w string) uint32 {
	off := uint32(len(t.arena))
	t.arena = append(t.arena, w...)
	if n := len(t.freeIDs); n > 0 {
		id := t.freeIDs[n-1]
		t.freeIDs = t.freeIDs[:n-1]
		t.off[id], t.ln[id] = off, uint32(len(w))
		return id
	}
	t.off = append(t.off, off)
	t.ln = append(t.ln, uint32(len(w)))
	return uint32(len(t.off) - 1)
}

// release drops term id, which no product holds any more.
func (t *terms) release(id uint32) {
	w := t.text(id)
	if t.build != nil {
		delete(t.build, w)
	} else {
		c, i := t.search(w)
		t.chunks[c] = slices.Delete(t.chunks[c], i, i+1)
		if len(t.chunks[c]) == 0 {
			t.chunks = slices.Delete(t.chunks, c, c+1)
		}
	}
	t.garbage += len(w)
	t.ln[id] = 0
	t.freeIDs = append(t.freeIDs, id)
	if t.garbage > compactAt && 2*t.garbage > len(t.arena) {
		t.compact()
	}
}

// compact copies the terms still held to a new arena. (Strings made of
// the old one stay valid: its bytes are never written again.)
func (t *terms) compact() {
	arena := make([]byte, 0, len(t.arena)-t.garbage)
	for id, n := range t.ln {
		if n > 0 {
			off := t.off[id]
			t.off[id] = uint32(len(arena))
			arena = append(arena, t.arena[off:off+n]...)
		}
	}
	t.arena, t.garbage = arena, 0
}

// finish ends a build: the terms sorted once, in chunks.
func (t *terms) finish() {
	if t.build == nil {
		return
	}
	ids := make([]uint32, 0, len(t.build))
	for _, id := range t.build {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b uint32) int { return strings.Compare(t.text(a), t.text(b)) })
	t.chunks = nil
	for len(ids) > 0 {
		n := min(chunkSize, len(ids))
		t.chunks = append(t.chunks, slices.Clone(ids[:n]))
		ids = ids[n:]
	}
	t.build = nil
	t.post.optimize()
	t.names.optimize()
	t.labels.optimize()
}

// prefix calls fn with every term that starts with w, in order, until fn
// returns false.
func (t *terms) prefix(w string, fn func(id uint32) bool) {
	c, i := t.search(w)
	for ; c < len(t.chunks); c, i = c+1, 0 {
		for _, id := range t.chunks[c][i:] {
			if !strings.HasPrefix(t.text(id), w) || !fn(id) {
				return
			}
		}
	}
}

// count returns the number of terms that start with w: a range of the
// order, found by two searches.
func (t *terms) count(w string) int {
	c1, i1 := t.search(w)
	c2, i2 := t.search(prefixEnd(w))
	if c1 == c2 {
		return i2 - i1
	}
	n := len(t.chunks[c1]) - i1 + i2
	for _, ch := range t.chunks[c1+1 : c2] {
		n += len(ch)
	}
	return n
}

// prefixEnd returns the least string above every string that starts with
// w, in byte order: w with its last character's successor (as the store's
// search bounds a word's range).
func prefixEnd(w string) string {
	r, size := utf8.DecodeLastRuneInString(w)
	next := r + 1
	if next >= 0xD800 && next <= 0xDFFF {
		next = 0xE000
	}
	if next > unicode.MaxRune {
		return w + string(rune(unicode.MaxRune))
	}
	return w[:len(w)-size] + string(next)
}

// bytes estimates the memory the terms hold.
func (t *terms) bytes() int64 {
	n := int64(cap(t.arena)) + int64(cap(t.off)+cap(t.ln)+cap(t.freeIDs))*4 + t.post.bytes() + t.names.bytes() + t.labels.bytes() + int64(cap(t.chunks))*24
	for _, ch := range t.chunks {
		n += int64(cap(ch)) * 4
	}
	return n + int64(len(t.build))*mapEntryBytes
}

// Seek returns the least term at or after from (fuzzy.Dictionary).
func (t *terms) Seek(from string) (string, bool) {
	c, i := t.search(from)
	if c == len(t.chunks) {
		return "", false
	}
	return t.text(t.chunks[c][i]), true
}
