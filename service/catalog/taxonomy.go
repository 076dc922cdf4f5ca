package catalog

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// maxCategoriesPerTenant bounds a company's tree.
const maxCategoriesPerTenant = 10_000

// MaxAttributesPerTenant bounds a company's attribute definitions (a
// variable for the tests).
var MaxAttributesPerTenant = 1000

// CategoryFields holds save_category's arguments;
// nil leaves a field alone (ParentID "" moves a category to the root).
type CategoryFields struct {
	Name     *string
	Handle   *string
	ParentID *string
	Position *int
}

// ListCategories returns the company's categories, parents before
// children.
func (s *Catalog) ListCategories(ctx context.Context, a *service.Access) ([]*vitrine.Category, error) {
	if err := a.Allow(service.OpListCategories); err != nil {
		return nil, err
	}
	return s.store.Categories(ctx, a.TenantID)
}

// CreateCategory adds a category, under a parent or at the root.
func (s *Catalog) CreateCategory(ctx context.Context, a *service.Access, in CategoryFields) (*vitrine.Category, error) {
	if err := a.Allow(service.OpSaveCategory); err != nil {
		return nil, err
	}
	return s.createCategory(ctx, a, in)
}

func (s *Catalog) createCategory(ctx context.Context, a *service.Access, in CategoryFields) (*vitrine.Category, error) {
	if in.Name == nil {
		return nil, vitrine.Invalid("name", "name is required")
	}
	all, err := s.store.Categories(ctx, a.TenantID)
	if err != nil {
		return nil, err
	}
	if len(all) >= maxCategoriesPerTenant {
		return nil, vitrine.Invalid("name", "a company has at most %d categories", maxCategoriesPerTenant)
	}
	now := s.now()
	c := &vitrine.Category{ID: vitrine.NewID(), TenantID: a.TenantID, CreatedAt: now, UpdatedAt: now}
	if err := in.applyTo(c, all); err != nil {
		return nil, err
	}
	if in.Position == nil {
		c.Position = 1 + len(slices.DeleteFunc(slices.Clone(all), func(x *vitrine.Category) bool { return x.ParentID != c.ParentID }))
	}
	if err := s.store.SaveCategory(ctx, a.Change(), c, false); err != nil {
		return nil, err
	}
	return c, nil
}

// UpdateCategory renames, re-handles, moves or reorders a category.
func (s *Catalog) UpdateCategory(ctx context.Context, a *service.Access, id string, in CategoryFields) (*vitrine.Category, error) {
	if err := a.Allow(service.OpSaveCategory); err != nil {
		return nil, err
	}
	all, err := s.store.Categories(ctx, a.TenantID)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(all, func(c *vitrine.Category) bool { return c.ID == id })
	if i < 0 {
		return nil, vitrine.NotFound("Category")
	}
	if in == (CategoryFields{}) {
		return nil, vitrine.Invalid("id", "nothing to change: give name, handle, parent_id or position")
	}
	c := *all[i]
	if err := in.applyTo(&c, all); err != nil {
		return nil, err
	}
	c.UpdatedAt = s.now()
	if err := s.store.SaveCategory(ctx, a.Change(), &c, true); err != nil {
		return nil, err
	}
	return &c, nil
}

// DeleteCategory removes a category without subcategories; its products
// leave it.
func (s *Catalog) DeleteCategory(ctx context.Context, a *service.Access, id string) error {
	if err := a.Allow(service.OpDeleteCategory); err != nil {
		return err
	}
	return s.store.DeleteCategory(ctx, a.Change(), a.TenantID, id)
}

func (in CategoryFields) applyTo(c *vitrine.Category, all []*vitrine.Category) error {
	if in.Name != nil {
		name, err := vitrine.ValidateName("name", *in.Name, 255)
		if err != nil {
			return err
		}
		if strings.ContainsFunc(name, func(r rune) bool { return r < ' ' }) {
			return vitrine.Invalid("name", "name must not contain control characters")
		}
		c.Name = name
		if in.Handle == nil && c.Handle == "" {
			c.Handle = freeCategoryHandle(vitrine.HandleOf(name), all, c.ID)
		}
	}
	if in.Handle != nil {
		h, err := vitrine.ValidateHandle("handle", *in.Handle)
		if err != nil {
			return err
		}
		c.Handle = h
	}
	if in.ParentID != nil {
		c.ParentID = strings.TrimSpace(*in.ParentID)
		if c.ParentID != "" && !slices.ContainsFunc(all, func(x *vitrine.Category) bool { return x.ID == c.ParentID }) {
			return vitrine.Invalid("parent_id", "no category %q in this company to put it under (list_categories lists them)", c.ParentID)
		}
	}
	if in.Position != nil {
		if *in.Position < 1 || *in.Position > maxCategoriesPerTenant {
			return vitrine.Invalid("position", "position must be between 1 and %d", maxCategoriesPerTenant)
		}
		c.Position = *in.Position
	}
	return nil
}

func freeCategoryHandle(h string, all []*vitrine.Category, self string) string {
	if h == "" {
		h = "category"
	}
	taken := func(x string) bool {
		return slices.ContainsFunc(all, func(c *vitrine.Category) bool { return c.Handle == x && c.ID != self })
	}
	out := h
	for n := 2; taken(out); n++ {
		out = fmt.Sprintf("%s-%d", h, n)
	}
	return out
}

// CategoryPath returns the names from the root down to the category,
// joined by " > ", as Shopify writes a product category.
func CategoryPath(all []*vitrine.Category, id string) string {
	byID := make(map[string]*vitrine.Category, len(all))
	for _, c := range all {
		byID[c.ID] = c
	}
	var names []string
	for c := byID[id]; c != nil && len(names) < 64; c = byID[c.ParentID] {
		names = append([]string{c.Name}, names...)
	}
	return strings.Join(names, " > ")
}

// ensureCategoryPath finds the category of a path of names ("Clothing >
// Jackets"), making the ones missing, and returns its id: an import's
// file brings its categories with it.
// Without create, a path with a missing category is a ValidationError:
// making categories needs catalog:manage whatever the way in.
func (s *Catalog) ensureCategoryPath(ctx context.Context, a *service.Access, path string, create bool) (string, error) {
	var parent string
	for _, name := range strings.Split(path, ">") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		all, err := s.store.Categories(ctx, a.TenantID)
		if err != nil {
			return "", err
		}
		i := slices.IndexFunc(all, func(c *vitrine.Category) bool { return c.ParentID == parent && strings.EqualFold(c.Name, name) })
		if i >= 0 {
			parent = all[i].ID
			continue
		}
		if !create {
			return "", vitrine.Invalid("category", "no category %q in this company, and making one needs the catalog:manage permission (save_category)", name)
		}
		c, err := s.createCategory(ctx, a, CategoryFields{Name: &name, ParentID: &parent})
		if err != nil {
			return "", err
		}
		parent = c.ID
	}
	if parent == "" {
		return "", vitrine.Invalid("category", "the category path %q names no category", path)
	}
	return parent, nil
}

// AttributeFields holds save_attribute's arguments.
type AttributeFields struct {
	Key    string
	Name   *string
	Type   string
	Values *[]string
	// Public shows the attribute in the company's shop window; unset, a
	// new one is private and an existing one stays as it is.
	Public *bool
	// Translations are the definition's name and enum values in the
	// company's other locales, by locale.
	Translations map[string]AttributeTranslation
}

var attributeKeyRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// ListAttributes returns the company's attribute definitions.
func (s *Catalog) ListAttributes(ctx context.Context, a *service.Access) ([]*vitrine.Attribute, error) {
	if err := a.Allow(service.OpListAttributes); err != nil {
		return nil, err
	}
	return s.store.Attributes(ctx, a.TenantID)
}

// SaveAttribute defines a product field of the company's own, or changes
// the definition of that key.
func (s *Catalog) SaveAttribute(ctx context.Context, a *service.Access, in AttributeFields) (*vitrine.Attribute, error) {
	if err := a.Allow(service.OpSaveAttribute); err != nil {
		return nil, err
	}
	defs, err := s.attributeDefs(ctx, a.TenantID)
	if err != nil {
		return nil, err
	}
	var ts []*vitrine.Translation
	if len(in.Translations) > 0 {
		// Checked against the definition as it will be, before it is
		// written: a refused translation writes nothing.
		next := vitrine.Attribute{Key: in.Key, Name: in.Key, Type: vitrine.AttributeType(in.Type)}
		if old := defs[in.Key]; old != nil {
			next = *old
		}
		if err := in.applyTo(&next); err != nil {
			return nil, err
		}
		if ts, err = s.attributeTranslations(ctx, a, &next, in.Translations); err != nil {
			return nil, err
		}
	}
	save := s.CreateAttribute
	if defs[in.Key] != nil {
		save = s.UpdateAttribute
	}
	at, err := save(ctx, a, in)
	if err != nil || len(ts) == 0 {
		return at, err
	}
	if err := s.store.SaveTranslations(ctx, a.Change(), a.TenantID, ts); err != nil {
		return nil, err
	}
	return at, nil
}

// CreateAttribute defines a product field of the company's own.
func (s *Catalog) CreateAttribute(ctx context.Context, a *service.Access, in AttributeFields) (*vitrine.Attribute, error) {
	if err := a.Allow(service.OpSaveAttribute); err != nil {
		return nil, err
	}
	if !attributeKeyRE.MatchString(in.Key) {
		return nil, vitrine.Invalid("key", "key must be a lower-case word of letters, digits and _, starting with a letter, such as \"material\"; got %q", in.Key)
	}
	at := &vitrine.Attribute{TenantID: a.TenantID, Key: in.Key, Type: vitrine.AttributeType(in.Type), Name: in.Key}
	if in.Type == "" {
		return nil, vitrine.Invalid("type", "no attribute %q yet: give its type to define it (text, number, boolean or enum)", in.Key)
	}
	if !slices.Contains(vitrine.AttributeTypes, at.Type) {
		return nil, vitrine.Invalid("type", "type must be \"text\", \"number\", \"boolean\" or \"enum\"; got %q", in.Type)
	}
	if err := in.applyTo(at); err != nil {
		return nil, err
	}
	defs, err := s.attributeDefs(ctx, a.TenantID)
	if err != nil {
		return nil, err
	}
	if len(defs) >= MaxAttributesPerTenant {
		return nil, vitrine.Invalid("key", "a company has at most %d attributes; it has %d (delete_attribute removes one no product uses)", MaxAttributesPerTenant, len(defs))
	}
	at.CreatedAt, at.UpdatedAt = s.now(), s.now()
	if err := s.store.SaveAttribute(ctx, a.Change(), at, false); err != nil {
		return nil, err
	}
	return at, nil
}

// UpdateAttribute renames an attribute or changes an enum's values.
func (s *Catalog) UpdateAttribute(ctx context.Context, a *service.Access, in AttributeFields) (*vitrine.Attribute, error) {
	if err := a.Allow(service.OpSaveAttribute); err != nil {
		return nil, err
	}
	defs, err := s.attributeDefs(ctx, a.TenantID)
	if err != nil {
		return nil, err
	}
	old := defs[in.Key]
	if old == nil {
		return nil, vitrine.NotFound("Attribute")
	}
	if in.Type != "" && in.Type != string(old.Type) {
		return nil, vitrine.Invalid("type", "an attribute's type cannot change (products hold values of it); define a new attribute")
	}
	at := *old
	if err := in.applyTo(&at); err != nil {
		return nil, err
	}
	at.UpdatedAt = s.now()
	if err := s.store.SaveAttribute(ctx, a.Change(), &at, true); err != nil {
		return nil, err
	}
	return &at, nil
}

// DeleteAttribute removes a definition no product has a value of.
func (s *Catalog) DeleteAttribute(ctx context.Context, a *service.Access, key string) error {
	if err := a.Allow(service.OpDeleteAttribute); err != nil {
		return err
	}
	return s.store.DeleteAttribute(ctx, a.Change(), a.TenantID, key)
}

func (in AttributeFields) applyTo(at *vitrine.Attribute) error {
	if in.Public != nil {
		at.Public = *in.Public
	}
	if in.Name != nil {
		name, err := vitrine.ValidateName("name", *in.Name, 255)
		if err != nil {
			return err
		}
		at.Name = name
	}
	if in.Values != nil {
		if at.Type != vitrine.AttributeEnum {
			return vitrine.Invalid("values", "values belong to an enum attribute; this one is %s", at.Type)
		}
		at.Values = nil
		seen := make(map[string]bool)
		for i, v := range *in.Values {
			v, err := vitrine.ValidateText(fmt.Sprintf("values[%d]", i), v, vitrine.MaxOptionLength)
			if err != nil {
				return err
			}
			if v == "" || seen[v] {
				continue
			}
			if len(at.Values) == vitrine.MaxEnumValues {
				return vitrine.Invalid("values", "an enum attribute has at most %d different values; got more (%d given)", vitrine.MaxEnumValues, len(*in.Values))
			}
			seen[v] = true
			at.Values = append(at.Values, v)
		}
	}
	if at.Type == vitrine.AttributeEnum && len(at.Values) == 0 {
		return vitrine.Invalid("values", "an enum attribute needs its values, such as [\"cotton\", \"linen\"]")
	}
	return nil
}

// attributeDefs returns the company's attribute definitions by key.
func (s *Catalog) attributeDefs(ctx context.Context, tenantID string) (map[string]*vitrine.Attribute, error) {
	list, err := s.store.Attributes(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	defs := make(map[string]*vitrine.Attribute, len(list))
	for _, d := range list {
		defs[d.Key] = d
	}
	return defs, nil
}

// taxonomy is a company's categories and attribute definitions, read at
// the first need of them and kept for one call (an import reads them once).
type taxonomy struct {
	read func() ([]*vitrine.Category, map[string]*vitrine.Attribute, error)
	once bool
	cats []*vitrine.Category
	defs map[string]*vitrine.Attribute
	err  error
}

func (s *Catalog) taxonomyOf(ctx context.Context, tenantID string) *taxonomy {
	return &taxonomy{read: func() ([]*vitrine.Category, map[string]*vitrine.Attribute, error) {
		cats, err := s.store.Categories(ctx, tenantID)
		if err != nil {
			return nil, nil, err
		}
		defs, err := s.attributeDefs(ctx, tenantID)
		return cats, defs, err
	}}
}

func (t *taxonomy) get() ([]*vitrine.Category, map[string]*vitrine.Attribute, error) {
	if !t.once {
		t.once = true
		t.cats, t.defs, t.err = t.read()
	}
	return t.cats, t.defs, t.err
}
