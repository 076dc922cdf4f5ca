package shapes

import (
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service/catalog"
)

type CategoryOut struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Handle    string    `json:"handle"`
	ParentID  string    `json:"parent_id" jsonschema:"Empty at the root."`
	Path      string    `json:"path" jsonschema:"Names from the root, joined by \" > \"."`
	Position  int       `json:"position"`
	UpdatedAt time.Time `json:"updated_at"`
}

func CategoryView(c *vitrine.Category, all []*vitrine.Category) CategoryOut {
	return CategoryOut{ID: c.ID, Name: c.Name, Handle: c.Handle, ParentID: c.ParentID, Path: catalog.CategoryPath(all, c.ID),
		Position: c.Position, UpdatedAt: c.UpdatedAt}
}

type ListCategoriesOut struct {
	Categories []CategoryOut `json:"categories" jsonschema:"Parents before children."`
}

type SaveCategoryIn struct {
	TenantArg
	ID       string     `json:"id,omitempty" jsonschema:"The category to change; none makes one."`
	Name     *shortText `json:"name,omitempty" jsonschema:"Needed to make one."`
	ParentID *string    `json:"parent_id,omitempty" jsonschema:"Empty: at the root (the default)."`
	Handle   *slug      `json:"handle,omitempty" jsonschema:"Default: from the name."`
	Position *int       `json:"position,omitempty" jsonschema:"Among its siblings. Default: last."`
}

type IDIn struct {
	TenantArg
	ID string `json:"id"`
}

type DeletedOut struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

type AttributeOut struct {
	Key    string   `json:"key"`
	Name   string   `json:"name"`
	Type   string   `json:"type"`
	Values []string `json:"values,omitempty" jsonschema:"An enum's."`
	Public bool     `json:"public" jsonschema:"Shown in the shop window."`
}

func AttributeView(a *vitrine.Attribute) AttributeOut {
	return AttributeOut{Key: a.Key, Name: a.Name, Type: string(a.Type), Values: a.Values, Public: a.Public}
}

type ListAttributesOut struct {
	Attributes []AttributeOut `json:"attributes"`
}

type attributeType string

type SaveAttributeIn struct {
	TenantArg
	Key    shortText     `json:"key" jsonschema:"Lower case, digits, _: such as material."`
	Name   *shortText    `json:"name,omitempty" jsonschema:"Default: the key."`
	Type   attributeType `json:"type,omitempty" jsonschema:"Needed to make one; fixed after."`
	Values *[]shortText  `json:"values,omitempty" jsonschema:"An enum's allowed values."`
	Public *bool         `json:"public,omitempty" jsonschema:"Shown in the shop window. Default: false."`
	// Translations are by locale: {"es": {"name": "...", "values": {"...": "..."}}}.
	Translations map[string]attributeTranslationIn `json:"translations,omitempty" jsonschema:"By locale: {name?, values?: {value: text}}."`
}

type AttributeKeyIn struct {
	TenantArg
	Key shortText `json:"key"`
}

type DeletedKeyOut struct {
	Key     string `json:"key"`
	Deleted bool   `json:"deleted"`
}
