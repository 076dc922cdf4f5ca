package catalog

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/base"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// SelectiveMatches is the number of matching products under which a
// search reads its matches through an index of words and sorts them,
// rather than walking the tenant's products in order and keeping the
// matches. (A variable for the tests, which run both plans.)
var SelectiveMatches = 2000

// MemberMatches is the number of products (in every company) whose names'
// words start with a common query's, under which a walk of SQLite's
// products in name order checks each product's rowid among them rather
// than its row. (A variable for the tests, which run every plan.)
var MemberMatches = 10000

// SearchMemberMatches is the same for a walk in any order for matches in
// any of a product's words, which lie apart as often as not: below it,
// the walk to a page's end would read more rows than the index holds
// matches (at 100,000 products, a word in one product of 20).
var SearchMemberMatches = 5000

// wordSearch is how the queries of one search find the products holding
// its words.
type wordSearch struct {
	// match returns the condition, with its arguments added to q, that a
	// product's words of column ("name_words"; "label_words", the name's
	// and the label's; or "search") match every
	// one of the search's clauses at level (searchLevels). drive says
	// that the query should find its products through this condition, if
	// it narrows them most; otherwise it only checks the products found
	// some other way.
	match func(q *base.QueryBuilder, column string, level int, drive bool) string
	// from returns the table a query reads when its matches of column
	// narrow it most: "products", or the same with a hint of how to reach
	// them fastest.
	from func(column string) string
	// few says that the search's matches are few (under SelectiveMatches)
	// and found through an index: a relevance search reads its name
	// matches and its other matches in one query, and sorts them.
	few bool
}

// sqliteSearch picks, for each column, one of three plans. SQLite's planner
// has no statistics for the full-text index: left alone, it walks the
// tenant's products in order even for a word that three of a million hold.
// So sqliteSearch counts the products whose words hold the query's, up to
// SelectiveMatches (in every tenant: the index is one for all). When they
// are fewer, queries read them by rowid (NOT INDEXED leaves the planner
// nothing else) and sort them; otherwise they walk the products in order
// and keep those whose words hold the query's, stopping at the page's end.
// The rowids of a rare query are read once, and its name matches checked
// on those rows. A walk for name matches (a relevance search's rank 1)
// checks each product's rowid among the index's matches, read once, when
// they are under MemberMatches: the names that start with a common word
// sit together in name order, so the walk to them may be long, and it
// then reads the sort's index alone, a product's row only when it
// matches. Both plans see the same words (vitrine.Words, space-separated,
// in the index and in the row), so both find the same products.
func sqliteSearch(ctx context.Context, c sqldb.Conn, _ string, levels searchLevels, names bool) (wordSearch, error) {
	// The index finds the products of the last level's clauses (every
	// alternative); each level's are checked on the rows.
	clauses := levels.top()
	fts := func(column, suffix string) string {
		return "{" + column + "} : (" + clauseExpr(clauses, " AND ", " OR ", func(w string) string {
			return `"` + strings.ReplaceAll(w, `"`, `""`) + `"` + suffix
		}) + ")"
	}
	// count counts column's matches up to limit: the words themselves
	// first, as the index reads a term's products lazily but merges every
	// term that starts with a word before it yields the first. Only when
	// the words are rare themselves is that merge worth making.
	count := func(column string, limit int) (int, error) {
		var n int
		for _, suffix := range []string{"", "*"} {
			err := c.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM products_fts WHERE products_fts MATCH $1 LIMIT `+strconv.Itoa(limit)+`)`,
				fts(column, suffix)).Scan(&n)
			if err != nil || n >= limit {
				return n, err
			}
		}
		return n, nil
	}
	// rare says that few products' words hold the query's, and rowids
	// which (a name's words are among them). When the words themselves
	// are rare, the matches of the words as prefixes are read, up to the
	// limit: fewer, and they are all.
	limit := strconv.Itoa(SelectiveMatches)
	var rowids []int64
	var n int
	err := c.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM products_fts WHERE products_fts MATCH $1 LIMIT `+strconv.Itoa(max(SelectiveMatches, SearchMemberMatches))+`)`,
		fts("search", "")).Scan(&n)
	if err != nil {
		return wordSearch{}, err
	}
	if n == 0 {
		// No product holds the words themselves: a stem ("cadeir"),
		// which is no word but starts common ones. Its matches are
		// counted as prefixes, or a common stem would pass for rare.
		err := c.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM products_fts WHERE products_fts MATCH $1 LIMIT `+strconv.Itoa(max(SelectiveMatches, SearchMemberMatches))+`)`,
			fts("search", "*")).Scan(&n)
		if err != nil {
			return wordSearch{}, err
		}
	}
	rare := n < SelectiveMatches
	if rare {
		rowids, err = sqldb.Collect(ctx, c, func(r sqldb.Row) (id int64, err error) { return id, r.Scan(&id) },
			`SELECT rowid FROM products_fts WHERE products_fts MATCH $1 LIMIT `+limit, fts("search", "*"))
		if err != nil {
			return wordSearch{}, err
		}
		rare = len(rowids) < SelectiveMatches
	}
	// A common query's name matches may still be few (a word of many SKUs
	// that no name holds): then they are read from the index; or not too
	// many to check by rowid.
	// A common query's matches in every column are checked by rowid when
	// fewer than SearchMemberMatches: a walk to a page's end would read
	// more rows than the index holds matches.
	members := false
	if !rare && n < SearchMemberMatches {
		if n, err = count("search", SearchMemberMatches); err != nil {
			return wordSearch{}, err
		}
		members = n < SearchMemberMatches
	}
	rareNames, nameMembers := rare, members
	if !rare && names {
		n, err := count("name_words", SelectiveMatches)
		if err != nil {
			return wordSearch{}, err
		}
		rareNames = n < SelectiveMatches
		if !rareNames && !members && MemberMatches > SelectiveMatches {
			if n, err = count("name_words", MemberMatches); err != nil {
				return wordSearch{}, err
			}
			nameMembers = n < MemberMatches
		}
	}
	list := "[]"
	if len(rowids) > 0 {
		b, _ := json.Marshal(rowids)
		list = string(b)
	}
	return wordSearch{
		match: func(q *base.QueryBuilder, column string, level int, drive bool) string {
			// The label's rank (the name's words and the label's) is found
			// as search's, which holds them, and checked on the row.
			text := column
			if column == "label_words" {
				column, text = "search", `name_words || ' ' || coalesce(label_words, '')`
			}
			conds := make([]string, 0, 2)
			switch {
			case !drive:
				// the product is found already: its words are checked
			case rare:
				conds = append(conds, `rowid IN (SELECT value FROM json_each(`+q.Arg(list)+`))`)
			case column == "name_words" && rareNames:
				cond := `rowid IN (SELECT rowid FROM products_fts WHERE products_fts MATCH ` + q.Arg(fts(column, "*")) + `)`
				if level >= topLevel {
					return cond
				}
				conds = append(conds, cond)
			case members || column == "name_words" && nameMembers:
				// +rowid: a term the walk checks, not one it reads by.
				conds = append(conds, `+rowid IN (SELECT rowid FROM products_fts WHERE products_fts MATCH `+q.Arg(fts(column, "*"))+`)`)
			}
			conds = append(conds, clauseExpr(levels.at(level), " AND ", " OR ", func(w string) string {
				return `instr(' ' || ` + text + `, ` + q.Arg(" "+w) + `) > 0`
			}))
			return "(" + strings.Join(conds, " AND ") + ")"
		},
		from: func(column string) string {
			if rare || column == "name_words" && rareNames {
				return "products NOT INDEXED"
			}
			return "products"
		},
		few: rare,
	}, nil
}

// postgresSearch checks a product's words with its tsvector columns, and finds
// the products of few matches through product_words (migration 00006),
// whose primary key holds each word's products within the tenant: a
// word's prefix is a range of it. Like SQLite's search, it first counts,
// for each word and column, the products whose words start with it, up to
// SelectiveMatches (reading the index lazily, in the tenant alone). When
// the rarest word holds fewer, the query reads its products by that range;
// otherwise it walks the tenant's products in order and checks their
// words, stopping at the page's end.
func postgresSearch(ctx context.Context, c sqldb.Conn, tenantID string, levels searchLevels, _ bool) (wordSearch, error) {
	clauses := levels.top()
	tsquery := func(cs []vitrine.Clause) string {
		return clauseExpr(cs, " & ", " | ", func(w string) string { return "'" + strings.ReplaceAll(w, "'", "''") + "':*" })
	}

	// rarest is the clause whose products are fewest: the words (a
	// term of each of its ways to match, the rarest) whose ranges of
	// product_words hold them all, and how many they hold.
	type rarest struct {
		words []string
		count int
		plain bool // a clause without alternatives
	}
	rare := map[string]rarest{}
	for _, column := range []string{"search", "name_words"} {
		cs := clauses
		if column == "name_words" {
			// A name's words are among the product's: a clause without
			// alternatives is as rare there, or rarer.
			if r := rare["search"]; r.plain {
				rare[column] = r
				break
			}
		}
		best := rarest{count: SelectiveMatches}
		for _, cl := range cs {
			r := rarest{plain: len(cl.Alternatives) == 0}
			for _, terms := range cl.Ways() {
				var least rarest
				for _, w := range terms {
					var n int
					err := c.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM product_words
						WHERE tenant_id = $1 AND word >= $2 AND word < $3`+inName(column)+` LIMIT `+strconv.Itoa(SelectiveMatches)+`) m`,
						tenantID, w, prefixEnd(w)).Scan(&n)
					if err != nil {
						return wordSearch{}, err
					}
					if least.words == nil || n < least.count {
						least = rarest{words: []string{w}, count: n}
					}
				}
				r.words, r.count = append(r.words, least.words...), r.count+least.count
			}
			if r.count < best.count {
				best = r
			}
		}
		rare[column] = best
	}
	return wordSearch{
		match: func(q *base.QueryBuilder, column string, level int, drive bool) string {
			tsv := map[string]string{"name_words": "name_tsv", "label_words": "label_tsv", "search": "search_tsv"}[column]
			cond := tsv + ` @@ ` + q.Arg(tsquery(levels.at(level))) + `::tsquery`
			if column == "label_words" {
				// Found as search's, which holds the label's words.
				column = "search"
			}
			if r := rare[column]; drive && r.words != nil {
				ranges := make([]string, len(r.words))
				for i, w := range r.words {
					ranges[i] = `word >= ` + q.Arg(w) + ` AND word < ` + q.Arg(prefixEnd(w))
				}
				cond = `id IN (SELECT product_id FROM product_words WHERE tenant_id = ` + q.Arg(tenantID) +
					` AND (` + strings.Join(ranges, ` OR `) + `)` + inName(column) + `) AND ` + cond
			}
			return cond
		},
		from: func(string) string { return "products" },
		few:  rare["search"].words != nil,
	}, nil
}

// clauseExpr writes clauses as a condition: every clause (joined by
// and), each the terms of one of its ways to match (joined by or), each
// of them (and) as term writes it.
func clauseExpr(clauses []vitrine.Clause, and, or string, term func(w string) string) string {
	parts := make([]string, 0, len(clauses))
	for _, c := range clauses {
		ways := c.Ways()
		alts := make([]string, len(ways))
		for i, terms := range ways {
			t := make([]string, len(terms))
			for j, w := range terms {
				t[j] = term(w)
			}
			alts[i] = strings.Join(t, and)
			if len(ways) > 1 && len(t) > 1 {
				alts[i] = "(" + alts[i] + ")"
			}
		}
		p := strings.Join(alts, or)
		if len(alts) > 1 {
			p = "(" + p + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, and)
}

func inName(column string) string {
	if column == "name_words" {
		return ` AND in_name`
	}
	return ""
}

// prefixEnd returns the least string above every string that starts with
// w, in code point order (which is the byte order of COLLATE "C"): w with
// its last character's successor.
func prefixEnd(w string) string {
	r, size := utf8.DecodeLastRuneInString(w)
	next := r + 1
	if next >= 0xD800 && next <= 0xDFFF {
		next = 0xE000 // surrogates are not characters
	}
	if next > unicode.MaxRune {
		return w + string(unicode.MaxRune) // w ends in the last code point: no word does
	}
	return w[:len(w)-size] + string(next)
}

// searchLevels are a search's clauses at each level of their
// alternatives (vitrine.ProductFilter.Levels): the words as written; with
// stems; with synonyms; with typos. A product matches the search when it
// matches at the last level.
type searchLevels [vitrine.MatchLevels][]vitrine.Clause

// top returns the clauses at the last level: what a product must match.
func (ls searchLevels) top() []vitrine.Clause { return ls[topLevel] }

// at returns the clauses at level.
func (ls searchLevels) at(level int) []vitrine.Clause { return ls[min(max(level, 0), topLevel)] }

// adds reports whether level l may find products that the level before
// does not: its clauses are not the same.
func (ls searchLevels) adds(l int) bool {
	return l == 0 || !reflect.DeepEqual(ls[l], ls[l-1])
}
