package mcpserver

import (
	"context"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

// taxonomyTools are the tools of the company's categories and
// attributes: read by anyone who reads products, written with
// catalog:manage.
func taxonomyTools() []*Tool {
	category := func(ctx context.Context, cat *catalog.Catalog, a *service.Access, c *vitrine.Category, err error) (shapes.CategoryOut, error) {
		if err != nil {
			return shapes.CategoryOut{}, err
		}
		all, err := cat.ListCategories(ctx, a)
		if err != nil {
			return shapes.CategoryOut{}, err
		}
		return shapes.CategoryView(c, all), nil
	}
	return []*Tool{
		catalogTool(Tool{
			Name:        "list_categories",
			Title:       "List categories",
			Description: "List the company's tree of categories, each with its path. list_products filters by category_id.",
			Toolset:     "catalog", Op: service.OpListCategories, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, _ shapes.TenantArg) (shapes.ListCategoriesOut, error) {
			all, err := cat.ListCategories(ctx, a)
			if err != nil {
				return shapes.ListCategoriesOut{}, err
			}
			out := shapes.ListCategoriesOut{Categories: make([]shapes.CategoryOut, len(all))}
			for i, c := range all {
				out.Categories[i] = shapes.CategoryView(c, all)
			}
			return out, nil
		}),
		catalogTool(Tool{
			Name:        "save_category",
			Title:       "Save a category",
			Description: "Make a category (without id), or rename, move or reorder one (with its id).",
			Toolset:     "catalog", Op: service.OpSaveCategory, TargetArg: "id",
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.SaveCategoryIn) (shapes.CategoryOut, error) {
			f := catalog.CategoryFields{Name: (*string)(in.Name), ParentID: in.ParentID, Handle: (*string)(in.Handle), Position: in.Position}
			if in.ID == "" {
				c, err := cat.CreateCategory(ctx, a, f)
				return category(ctx, cat, a, c, err)
			}
			c, err := cat.UpdateCategory(ctx, a, in.ID, f)
			return category(ctx, cat, a, c, err)
		}),
		catalogTool(Tool{
			Name:        "delete_category",
			Title:       "Delete a category",
			Description: "Delete a category without subcategories; its products leave it.",
			Toolset:     "catalog", Op: service.OpDeleteCategory, Destructive: true, Idempotent: true, TargetArg: "id",
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.IDIn) (shapes.DeletedOut, error) {
			if err := cat.DeleteCategory(ctx, a, in.ID); err != nil {
				return shapes.DeletedOut{}, err
			}
			return shapes.DeletedOut{ID: in.ID, Deleted: true}, nil
		}),
		catalogTool(Tool{
			Name:        "list_attributes",
			Title:       "List attributes",
			Description: "List the company's own product fields: key, name, type and an enum's values.",
			Toolset:     "catalog", Op: service.OpListAttributes, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, _ shapes.TenantArg) (shapes.ListAttributesOut, error) {
			all, err := cat.ListAttributes(ctx, a)
			if err != nil {
				return shapes.ListAttributesOut{}, err
			}
			out := shapes.ListAttributesOut{Attributes: make([]shapes.AttributeOut, len(all))}
			for i, at := range all {
				out.Attributes[i] = shapes.AttributeView(at)
			}
			return out, nil
		}),
		catalogTool(Tool{
			Name:        "save_attribute",
			Title:       "Save an attribute",
			Description: "Define a product field of the company's own by key, or rename one or change an enum's values.",
			Toolset:     "catalog", Op: service.OpSaveAttribute, TargetArg: "key",
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.SaveAttributeIn) (shapes.AttributeOut, error) {
			f := catalog.AttributeFields{Key: string(in.Key), Name: (*string)(in.Name), Type: string(in.Type), Public: in.Public,
				Translations: shapes.AttributeTranslations(in.Translations)}
			if in.Values != nil {
				v := shapes.TextsOf(*in.Values)
				f.Values = &v
			}
			at, err := cat.SaveAttribute(ctx, a, f)
			if err != nil {
				return shapes.AttributeOut{}, err
			}
			return shapes.AttributeView(at), nil
		}),
		catalogTool(Tool{
			Name:        "delete_attribute",
			Title:       "Delete an attribute",
			Description: "Delete an attribute no product has a value of.",
			Toolset:     "catalog", Op: service.OpDeleteAttribute, Destructive: true, Idempotent: true, TargetArg: "key",
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.AttributeKeyIn) (shapes.DeletedKeyOut, error) {
			if err := cat.DeleteAttribute(ctx, a, string(in.Key)); err != nil {
				return shapes.DeletedKeyOut{}, err
			}
			return shapes.DeletedKeyOut{Key: string(in.Key), Deleted: true}, nil
		}),
	}
}
