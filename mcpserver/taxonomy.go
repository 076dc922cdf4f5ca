package mcpserver

import (
	"context"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

type categoryOut struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Handle    string    `json:"handle"`
	ParentID  string    `json:"parent_id" jsonschema:"Empty at the root."`
	Path      string    `json:"path" jsonschema:"Names from the root, joined by \" > \"."`
	Position  int       `json:"position"`
	UpdatedAt time.Time `json:"updated_at"`
}

func categoryView(c *vitrine.Category, all []*vitrine.Category) categoryOut {
	return categoryOut{ID: c.ID, Name: c.Name, Handle: c.Handle, ParentID: c.ParentID, Path: service.CategoryPath(all, c.ID),
		Position: c.Position, UpdatedAt: c.UpdatedAt}
}

type listCategoriesOut struct {
	Categories []categoryOut `json:"categories" jsonschema:"Parents before children."`
}

type saveCategoryIn struct {
	TenantArg
	ID       string     `json:"id,omitempty" jsonschema:"The category to change; none makes one."`
	Name     *shortText `json:"name,omitempty" jsonschema:"Needed to make one."`
	ParentID *string    `json:"parent_id,omitempty" jsonschema:"Empty: at the root (the default)."`
	Handle   *slug      `json:"handle,omitempty" jsonschema:"Default: from the name."`
	Position *int       `json:"position,omitempty" jsonschema:"Among its siblings. Default: last."`
}

type idIn struct {
	TenantArg
	ID string `json:"id"`
}

type deletedOut struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

type attributeOut struct {
	Key    string   `json:"key"`
	Name   string   `json:"name"`
	Type   string   `json:"type"`
	Values []string `json:"values,omitempty" jsonschema:"An enum's."`
}

func attributeView(a *vitrine.Attribute) attributeOut {
	return attributeOut{Key: a.Key, Name: a.Name, Type: string(a.Type), Values: a.Values}
}

type listAttributesOut struct {
	Attributes []attributeOut `json:"attributes"`
}

type attributeType string

type saveAttributeIn struct {
	TenantArg
	Key    shortText     `json:"key" jsonschema:"Lower case, digits, _: such as material."`
	Name   *shortText    `json:"name,omitempty" jsonschema:"Default: the key."`
	Type   attributeType `json:"type,omitempty" jsonschema:"Needed to make one; fixed after."`
	Values *[]shortText  `json:"values,omitempty" jsonschema:"An enum's allowed values."`
}

type attributeKeyIn struct {
	TenantArg
	Key shortText `json:"key"`
}

type deletedKeyOut struct {
	Key     string `json:"key"`
	Deleted bool   `json:"deleted"`
}

// taxonomyTools are the tools of the company's categories and
// attributes: read by anyone who reads products, written with
// catalog:manage.
func taxonomyTools() []*Tool {
	category := func(ctx context.Context, svc *service.Service, a *service.Access, c *vitrine.Category, err error) (categoryOut, error) {
		if err != nil {
			return categoryOut{}, err
		}
		all, err := svc.ListCategories(ctx, a)
		if err != nil {
			return categoryOut{}, err
		}
		return categoryView(c, all), nil
	}
	return []*Tool{
		tenantTool(Tool{
			Name:        "list_categories",
			Title:       "List categories",
			Description: "List the company's tree of categories, each with its path. list_products filters by category_id.",
			Toolset:     "catalog", Op: service.OpListCategories, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, svc *service.Service, a *service.Access, _ TenantArg) (listCategoriesOut, error) {
			all, err := svc.ListCategories(ctx, a)
			if err != nil {
				return listCategoriesOut{}, err
			}
			out := listCategoriesOut{Categories: make([]categoryOut, len(all))}
			for i, c := range all {
				out.Categories[i] = categoryView(c, all)
			}
			return out, nil
		}),
		tenantTool(Tool{
			Name:        "save_category",
			Title:       "Save a category",
			Description: "Make a category (without id), or rename, move or reorder one (with its id).",
			Toolset:     "catalog", Op: service.OpSaveCategory, TargetArg: "id",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in saveCategoryIn) (categoryOut, error) {
			f := service.CategoryFields{Name: (*string)(in.Name), ParentID: in.ParentID, Handle: (*string)(in.Handle), Position: in.Position}
			if in.ID == "" {
				c, err := svc.CreateCategory(ctx, a, f)
				return category(ctx, svc, a, c, err)
			}
			c, err := svc.UpdateCategory(ctx, a, in.ID, f)
			return category(ctx, svc, a, c, err)
		}),
		tenantTool(Tool{
			Name:        "delete_category",
			Title:       "Delete a category",
			Description: "Delete a category without subcategories; its products leave it.",
			Toolset:     "catalog", Op: service.OpDeleteCategory, Destructive: true, Idempotent: true, TargetArg: "id",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in idIn) (deletedOut, error) {
			if err := svc.DeleteCategory(ctx, a, in.ID); err != nil {
				return deletedOut{}, err
			}
			return deletedOut{ID: in.ID, Deleted: true}, nil
		}),
		tenantTool(Tool{
			Name:        "list_attributes",
			Title:       "List attributes",
			Description: "List the company's own product fields: key, name, type and an enum's values.",
			Toolset:     "catalog", Op: service.OpListAttributes, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, svc *service.Service, a *service.Access, _ TenantArg) (listAttributesOut, error) {
			all, err := svc.ListAttributes(ctx, a)
			if err != nil {
				return listAttributesOut{}, err
			}
			out := listAttributesOut{Attributes: make([]attributeOut, len(all))}
			for i, at := range all {
				out.Attributes[i] = attributeView(at)
			}
			return out, nil
		}),
		tenantTool(Tool{
			Name:        "save_attribute",
			Title:       "Save an attribute",
			Description: "Define a product field of the company's own by key, or rename one or change an enum's values.",
			Toolset:     "catalog", Op: service.OpSaveAttribute, TargetArg: "key",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in saveAttributeIn) (attributeOut, error) {
			f := service.AttributeFields{Key: string(in.Key), Name: (*string)(in.Name), Type: string(in.Type)}
			if in.Values != nil {
				v := textsOf(*in.Values)
				f.Values = &v
			}
			at, err := svc.SaveAttribute(ctx, a, f)
			if err != nil {
				return attributeOut{}, err
			}
			return attributeView(at), nil
		}),
		tenantTool(Tool{
			Name:        "delete_attribute",
			Title:       "Delete an attribute",
			Description: "Delete an attribute no product has a value of.",
			Toolset:     "catalog", Op: service.OpDeleteAttribute, Destructive: true, Idempotent: true, TargetArg: "key",
		}, func(ctx context.Context, svc *service.Service, a *service.Access, in attributeKeyIn) (deletedKeyOut, error) {
			if err := svc.DeleteAttribute(ctx, a, string(in.Key)); err != nil {
				return deletedKeyOut{}, err
			}
			return deletedKeyOut{Key: string(in.Key), Deleted: true}, nil
		}),
	}
}
