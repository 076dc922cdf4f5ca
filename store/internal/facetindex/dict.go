package facetindex

// dict is the dictionary of one field's values: each value's key (what a
// filter compares), the products holding it, and, for a field whose
// values are written in several forms that compare alike ("Acme" and
// "ACME" for a vendor), its forms and how many products write each.
// Keys and forms, once seen, keep their ordinals: a field's values are
// few beside its products, and a value that comes back finds its own.
type dict struct {
	ords map[string]uint32
	keys []string
	post postings

	// keyOf, when set, makes a form's key; products then hold forms.
	keyOf    func(string) string
	formOrds map[string]uint32
	forms    []string
	formKey  []uint32
	formRefs []uint32
	nForms   []uint32 // by key: its forms held by some product
	aForm    []uint32 // by key: a form held by some product; the one when nForms is 1
}

func newDict(keyOf func(string) string) dict {
	d := dict{ords: map[string]uint32{}, keyOf: keyOf}
	if keyOf != nil {
		d.formOrds = map[string]uint32{}
	}
	return d
}

// key returns the ordinal of key k, if the dictionary has it.
func (d *dict) key(k string) (uint32, bool) {
	o, ok := d.ords[k]
	return o, ok
}

// intern returns the ordinal of key k, adding it when new.
func (d *dict) intern(k string) uint32 {
	if o, ok := d.ords[k]; ok {
		return o
	}
	o := uint32(len(d.keys))
	d.ords[k] = o
	d.keys = append(d.keys, k)
	d.nForms = append(d.nForms, 0)
	d.aForm = append(d.aForm, 0)
	return o
}

// form returns the ordinal of form s, adding it (and its key) when new.
func (d *dict) form(s string) uint32 {
	if f, ok := d.formOrds[s]; ok {
		return f
	}
	f := uint32(len(d.forms))
	d.formOrds[s] = f
	d.forms = append(d.forms, s)
	d.formKey = append(d.formKey, d.intern(d.keyOf(s)))
	d.formRefs = append(d.formRefs, 0)
	return f
}

// hold counts one more product writing form f.
func (d *dict) hold(f uint32) {
	d.formRefs[f]++
	if d.formRefs[f] == 1 {
		k := d.formKey[f]
		d.nForms[k]++
		if d.nForms[k] == 1 {
			d.aForm[k] = f
		}
	}
}

// release counts one product fewer writing form f.
func (d *dict) release(f uint32) {
	d.formRefs[f]--
	if d.formRefs[f] != 0 {
		return
	}
	k := d.formKey[f]
	d.nForms[k]--
	if d.nForms[k] == 1 || d.aForm[k] == f {
		// Find a form of the key still held (rare: a key written in
		// several forms lost one).
		for g, gk := range d.formKey {
			if gk == k && d.formRefs[g] > 0 {
				d.aForm[k] = uint32(g)
				break
			}
		}
	}
}

// bytes estimates the memory the dictionary holds.
func (d *dict) bytes() int64 {
	n := d.post.bytes() + int64(cap(d.keys))*16 + int64(cap(d.nForms)+cap(d.aForm))*4
	for _, k := range d.keys {
		n += int64(len(k)) + mapEntryBytes
	}
	n += int64(cap(d.forms))*16 + int64(cap(d.formKey)+cap(d.formRefs))*4
	for _, f := range d.forms {
		n += int64(len(f)) + mapEntryBytes
	}
	return n
}

// mapEntryBytes is what an entry of a map of strings costs beside the
// string's bytes, about.
const mapEntryBytes = 40
