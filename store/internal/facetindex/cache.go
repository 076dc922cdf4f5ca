package facetindex

import "sync"

// Cache holds the indexes of many companies within a budget of bytes (each
// index's own estimate, Bytes), dropping the least recently used first.
// Its methods are safe for concurrent use.
type Cache struct {
	mu     sync.Mutex
	budget int64
	used   int64
	byKey  map[string]*entry
	ring   entry // sentinel: ring.next is the most recently used
}

type entry struct {
	key        string
	ix         *Index
	bytes      int64
	prev, next *entry
}

// NewCache returns an empty cache of budget bytes.
func NewCache(budget int64) *Cache {
	c := &Cache{budget: budget, byKey: map[string]*entry{}}
	c.ring.prev, c.ring.next = &c.ring, &c.ring
	return c
}

// Get returns the index of key, or nil, and counts it as used.
func (c *Cache) Get(key string) *Index {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.byKey[key]
	if e == nil {
		return nil
	}
	c.unlink(e)
	c.front(e)
	return e.ix
}

// Add holds ix for key (in place of what key held), as the most recently
// used, and drops the least recently used others until the cache is
// within its budget. It reports whether ix is held: not when it alone
// exceeds the budget.
func (c *Cache) Add(key string, ix *Index) bool {
	bytes := ix.Bytes()
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.byKey[key]; e != nil {
		c.drop(e)
	}
	if bytes > c.budget {
		return false
	}
	e := &entry{key: key, ix: ix, bytes: bytes}
	c.byKey[key] = e
	c.used += bytes
	c.front(e)
	c.trim()
	return true
}

// Resize measures key's index again, after writes changed it, and drops
// the least recently used others (or it, when it alone exceeds the
// budget) until the cache is within its budget.
func (c *Cache) Resize(key string) {
	c.mu.Lock()
	e := c.byKey[key]
	c.mu.Unlock()
	if e == nil {
		return
	}
	bytes := e.ix.Bytes()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey[key] != e {
		return
	}
	c.used += bytes - e.bytes
	e.bytes = bytes
	if bytes > c.budget {
		c.drop(e)
	}
	c.trim()
}

// Remove drops key's index.
func (c *Cache) Remove(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.byKey[key]; e != nil {
		c.drop(e)
	}
}

// Bytes returns the bytes the cache holds, by its indexes' estimates.
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

func (c *Cache) trim() {
	for c.used > c.budget && c.ring.prev != &c.ring {
		c.drop(c.ring.prev)
	}
}

func (c *Cache) drop(e *entry) {
	c.unlink(e)
	delete(c.byKey, e.key)
	c.used -= e.bytes
}

func (c *Cache) unlink(e *entry) {
	e.prev.next, e.next.prev = e.next, e.prev
}

func (c *Cache) front(e *entry) {
	e.prev, e.next = &c.ring, c.ring.next
	c.ring.next.prev = e
	c.ring.next = e
}
