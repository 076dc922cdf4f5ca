package demo

import (
	"context"
	"fmt"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

// shop is a demo company's catalog: its tree of categories, its
// attributes and its products.
type shop struct {
	categories []category
	attributes []attribute
	products   []product
}

// category is a node of the tree, under the category named parent (made
// before it) or at the root.
type category struct{ name, parent string }

type attribute struct {
	key, name, typ string
	values         []string // of an enum
	// public attributes are shown in the window and its feeds.
	public bool
}

// product is a demo product: of one variant (sku, price, compareAt,
// stock at the top) or of the variants given, over its options.
type product struct {
	sku, name, description, price, compareAt string
	stock                                    int64
	status                                   string
	vendor, productType                      string
	tags                                     []string
	categories                               []string // names
	attributes                               map[string]any
	images                                   []image
	options                                  []vitrine.Option
	variants                                 []variant
}

type image struct{ file, alt string }

type variant struct {
	sku              string
	options          map[string]string
	price, compareAt string
	stock            int64
	image            string // the file of one of the product's images
}

// shirt's variants: a color and a size.
func shirt(sku, color, size, price, compareAt string, stock int64, image string) variant {
	return variant{sku: sku, options: map[string]string{"Cor": color, "Tamanho": size}, price: price, compareAt: compareAt, stock: stock, image: image}
}

var sizes = vitrine.Option{Name: "Tamanho", Values: []string{"P", "M", "G", "GG"}}

var technovaShop = &shop{
	categories: []category{
		{"Informática", ""}, {"Notebooks", "Informática"}, {"Monitores", "Informática"}, {"Periféricos", "Informática"},
		{"Mouses e mousepads", "Periféricos"}, {"Teclados", "Periféricos"},
		{"Áudio", ""}, {"Escritório", ""},
		{"Vestuário", ""}, {"Camisetas", "Vestuário"}, {"Moletons", "Vestuário"}, {"Bonés", "Vestuário"},
	},
	attributes: []attribute{
		{"garantia_meses", "Garantia (meses)", "number", nil, false},
		{"sem_fio", "Sem fio", "boolean", nil, false},
		{"voltagem", "Voltagem", "enum", []string{"110 V", "220 V", "Bivolt"}, false},
		{"material", "Material", "text", nil, false},
		// Public, and by their keys what the feeds send as gender and age
		// group, which Google requires of apparel.
		{"genero", "Gênero", "enum", []string{"Feminino", "Masculino", "Unissex"}, true},
		{"faixa_etaria", "Faixa etária", "enum", []string{"Adulto", "Infantil"}, true},
	},
	products: []product{
		{sku: "NB-DELL-5440", name: "Notebook Dell Inspiron 15", description: "Intel Core i7, 16 GB RAM, SSD 512 GB, tela 15,6\" Full HD.",
			price: "4599.90", stock: 12, vendor: "Dell", productType: "Notebook", tags: []string{"notebook", "intel", "home office"},
			categories: []string{"Notebooks"}, attributes: map[string]any{"garantia_meses": 12, "voltagem": "Bivolt"},
			images: []image{{"notebook.png", "Notebook Dell Inspiron 15 aberto"}}},
		{sku: "MS-LOGI-MX3S", name: "Mouse Logitech MX Master 3S", description: "Mouse sem fio, 8.000 DPI, cliques silenciosos.",
			price: "649.90", compareAt: "799.90", stock: 40, vendor: "Logitech", productType: "Mouse", tags: []string{"sem fio", "bluetooth"},
			categories: []string{"Mouses e mousepads"}, attributes: map[string]any{"garantia_meses": 12, "sem_fio": true},
			images: []image{{"mouse.png", "Mouse Logitech MX Master 3S, grafite"}}},
		{sku: "MN-LG-29WQ600", name: "Monitor LG UltraWide 29\"", description: "IPS, 2560x1080, HDR10, 100 Hz.",
			price: "1299.00", stock: 7, vendor: "LG", productType: "Monitor", tags: []string{"ultrawide", "hdr"},
			categories: []string{"Monitores"}, attributes: map[string]any{"garantia_meses": 12, "voltagem": "Bivolt"},
			images: []image{{"monitor.png", "Monitor LG UltraWide de frente"}}},
		{sku: "KB-KEYC-K2", name: "Teclado Mecânico Keychron K2", description: "Layout compacto 75%, Bluetooth, switches Brown.",
			price: "799.00", stock: 0, vendor: "Keychron", productType: "Teclado", tags: []string{"mecânico", "bluetooth"},
			categories: []string{"Teclados"}, attributes: map[string]any{"garantia_meses": 12, "sem_fio": true},
			images: []image{{"teclado.png", "Teclado Keychron K2 visto de cima"}}},
		{sku: "HS-JBL-T520", name: "Fone de Ouvido JBL Tune 520BT", description: "Bluetooth 5.3, até 57 horas de bateria.",
			price: "299.90", compareAt: "349.90", stock: 25, vendor: "JBL", productType: "Fone de ouvido", tags: []string{"bluetooth", "sem fio"},
			categories: []string{"Áudio"}, attributes: map[string]any{"garantia_meses": 12, "sem_fio": true},
			images: []image{{"fone.png", "Fone JBL Tune 520BT"}}},
		{sku: "CH-ERGO-01", name: "Cadeira Ergonômica Flexform", description: "Apoio lombar ajustável. Fora de linha.",
			price: "1899.00", stock: 3, status: "archived", vendor: "Flexform", productType: "Cadeira", tags: []string{"ergonomia"},
			categories: []string{"Escritório"}, attributes: map[string]any{"garantia_meses": 24},
			images: []image{{"cadeira.png", "Cadeira Flexform de lado"}}},
		{name: "Camiseta TechNova Dev", description: "<p>Algodão penteado 30.1, gola careca, estampa <strong>git push</strong> nas costas.</p><p>O GG custa mais: mais tecido.</p>",
			vendor: "TechNova", productType: "Camiseta", tags: []string{"algodão", "vestuário", "verão"},
			categories: []string{"Camisetas"}, attributes: map[string]any{"material": "100% algodão", "genero": "Unissex", "faixa_etaria": "Adulto"},
			images:  []image{{"camiseta-azul.png", "Camiseta azul, frente"}, {"camiseta-costas.png", "Camiseta azul, costas"}, {"camiseta-preta.png", "Camiseta preta, frente"}},
			options: []vitrine.Option{{Name: "Cor", Values: []string{"Azul", "Preta"}}, sizes},
			variants: []variant{
				shirt("CAM-DEV-AZ-P", "Azul", "P", "59.90", "", 6, "camiseta-azul.png"),
				shirt("CAM-DEV-AZ-M", "Azul", "M", "59.90", "", 8, "camiseta-azul.png"),
				shirt("CAM-DEV-AZ-G", "Azul", "G", "59.90", "", 5, "camiseta-azul.png"),
				shirt("CAM-DEV-AZ-GG", "Azul", "GG", "69.90", "", 0, "camiseta-azul.png"),
				shirt("CAM-DEV-PR-P", "Preta", "P", "49.90", "59.90", 4, "camiseta-preta.png"),
				shirt("CAM-DEV-PR-M", "Preta", "M", "49.90", "59.90", 0, "camiseta-preta.png"),
				shirt("CAM-DEV-PR-G", "Preta", "G", "49.90", "59.90", 7, "camiseta-preta.png"),
				shirt("CAM-DEV-PR-GG", "Preta", "GG", "59.90", "69.90", 2, "camiseta-preta.png"),
			}},
		{name: "Moletom TechNova com Capuz", description: "<p>Moletom flanelado com capuz e bolso canguru.</p>",
			vendor: "TechNova", productType: "Moletom", tags: []string{"algodão", "vestuário", "inverno"},
			categories: []string{"Moletons"}, attributes: map[string]any{"material": "Algodão e poliéster", "genero": "Unissex", "faixa_etaria": "Adulto"},
			images:  []image{{"moletom-cinza.png", "Moletom cinza"}, {"moletom-marinho.png", "Moletom azul-marinho"}},
			options: []vitrine.Option{{Name: "Cor", Values: []string{"Cinza", "Azul-marinho"}}, sizes},
			variants: []variant{
				shirt("MOL-TN-CZ-P", "Cinza", "P", "179.90", "", 3, "moletom-cinza.png"),
				shirt("MOL-TN-CZ-M", "Cinza", "M", "179.90", "", 5, "moletom-cinza.png"),
				shirt("MOL-TN-CZ-G", "Cinza", "G", "179.90", "", 4, "moletom-cinza.png"),
				shirt("MOL-TN-CZ-GG", "Cinza", "GG", "199.90", "", 1, "moletom-cinza.png"),
				shirt("MOL-TN-AM-M", "Azul-marinho", "M", "179.90", "", 0, "moletom-marinho.png"),
				shirt("MOL-TN-AM-G", "Azul-marinho", "G", "179.90", "", 2, "moletom-marinho.png"),
			}},
		{name: "Mousepad Speed Redragon", description: "<p>Superfície de tecido speed, base de borracha antiderrapante, bordas costuradas.</p>",
			vendor: "Redragon", productType: "Mousepad", tags: []string{"gamer"},
			categories: []string{"Mouses e mousepads"},
			images:     []image{{"mousepad.png", "Mousepad Redragon"}},
			options:    []vitrine.Option{{Name: "Tamanho", Values: []string{"M (32 × 27 cm)", "G (80 × 30 cm)", "XG (90 × 42 cm)"}}},
			variants: []variant{
				{sku: "MP-RD-M", options: map[string]string{"Tamanho": "M (32 × 27 cm)"}, price: "39.90", stock: 30},
				{sku: "MP-RD-G", options: map[string]string{"Tamanho": "G (80 × 30 cm)"}, price: "79.90", stock: 12},
				{sku: "MP-RD-XG", options: map[string]string{"Tamanho": "XG (90 × 42 cm)"}, price: "99.90", compareAt: "119.90", stock: 0},
			}},
		{sku: "BONE-TN", name: "Boné TechNova Aba Curva", description: "<p>Sarja de algodão, fecho ajustável. Lançamento em breve.</p>",
			price: "69.90", stock: 15, status: "draft", vendor: "TechNova", productType: "Boné", tags: []string{"vestuário"},
			categories: []string{"Bonés"}, attributes: map[string]any{"material": "Sarja de algodão", "genero": "Unissex", "faixa_etaria": "Adulto"},
			images: []image{{"bone.png", "Boné laranja de lado"}}},
	},
}

var mercadoVerdeShop = &shop{
	categories: []category{
		{"Hortifrúti", ""}, {"Frutas", "Hortifrúti"},
		{"Mercearia", ""}, {"Cafés", "Mercearia"}, {"Azeites", "Mercearia"}, {"Mel", "Mercearia"},
		{"Padaria", ""}, {"Ovos", ""}, {"Bebidas", ""},
	},
	attributes: []attribute{
		{"organico", "Orgânico", "boolean", nil, false},
		{"origem", "Origem", "text", nil, false},
		{"conservacao", "Conservação", "enum", []string{"Ambiente", "Refrigerado"}, false},
	},
	products: []product{
		{sku: "FR-MACA-FUJI", name: "Maçã Fuji (kg)", description: "Maçã Fuji nacional, vendida por quilo.",
			price: "12.90", stock: 150, vendor: "Sítio Boa Vista", productType: "Fruta", tags: []string{"fruta", "nacional"},
			categories: []string{"Frutas"}, attributes: map[string]any{"organico": false, "origem": "São Joaquim (SC)", "conservacao": "Refrigerado"},
			images: []image{{"maca.png", "Maçã Fuji vermelha"}}},
		{sku: "CF-ESP-500", name: "Café Especial Torrado 500 g", description: "Grãos arábica do sul de Minas, torra média.",
			price: "39.90", compareAt: "44.90", stock: 60, vendor: "Torrefação Serra Azul", productType: "Café", tags: []string{"café", "arábica"},
			categories: []string{"Cafés"}, attributes: map[string]any{"organico": false, "origem": "Sul de Minas (MG)", "conservacao": "Ambiente"},
			images: []image{{"cafe.png", "Pacote de café especial"}}},
		{sku: "AZ-OLIVA-500", name: "Azeite Extravirgem 500 ml", description: "Acidez máxima de 0,3%.",
			price: "49.90", stock: 30, vendor: "Olivais do Sul", productType: "Azeite", tags: []string{"azeite", "extravirgem"},
			categories: []string{"Azeites"}, attributes: map[string]any{"organico": true, "origem": "Encruzilhada do Sul (RS)", "conservacao": "Ambiente"},
			images: []image{{"azeite.png", "Garrafa de azeite"}}},
		{sku: "PA-INTEGRAL", name: "Pão Integral", description: "Fermentação natural, 450 g.",
			price: "9.50", stock: 20, vendor: "Padaria Mercado Verde", productType: "Pão", tags: []string{"pão", "fermentação natural"},
			categories: []string{"Padaria"}, attributes: map[string]any{"organico": false, "conservacao": "Ambiente"},
			images: []image{{"pao.png", "Pão integral"}}},
		{name: "Mel Silvestre", description: "<p>Mel silvestre cru, de floradas nativas.</p>",
			vendor: "Apiário Flor do Campo", productType: "Mel", tags: []string{"mel", "orgânico"},
			categories: []string{"Mel"}, attributes: map[string]any{"organico": true, "origem": "Serra da Mantiqueira (MG)", "conservacao": "Ambiente"},
			images:  []image{{"mel.png", "Pote de mel"}},
			options: []vitrine.Option{{Name: "Peso", Values: []string{"300 g", "500 g", "1 kg"}}},
			variants: []variant{
				{sku: "MEL-SILV-300", options: map[string]string{"Peso": "300 g"}, price: "24.90", stock: 12},
				{sku: "MEL-SILV-500", options: map[string]string{"Peso": "500 g"}, price: "36.90", compareAt: "42.90", stock: 9},
				{sku: "MEL-SILV-1KG", options: map[string]string{"Peso": "1 kg"}, price: "64.90", stock: 0},
			}},
		{name: "Ovos Caipira", description: "<p>Ovos vermelhos de galinhas criadas soltas.</p>",
			vendor: "Granja Recanto", productType: "Ovos", tags: []string{"ovos", "caipira"},
			categories: []string{"Ovos"}, attributes: map[string]any{"organico": false, "conservacao": "Refrigerado"},
			images:  []image{{"ovos.png", "Ovos caipira na caixa"}},
			options: []vitrine.Option{{Name: "Quantidade", Values: []string{"6 unidades", "12 unidades", "30 unidades"}}},
			variants: []variant{
				{sku: "OV-CAIP-6", options: map[string]string{"Quantidade": "6 unidades"}, price: "11.90", stock: 30},
				{sku: "OV-CAIP-12", options: map[string]string{"Quantidade": "12 unidades"}, price: "21.90", stock: 24},
				{sku: "OV-CAIP-30", options: map[string]string{"Quantidade": "30 unidades"}, price: "49.90", stock: 5},
			}},
		{sku: "KOMB-GENG", name: "Kombucha de Gengibre 500 ml", description: "<p>Fermentada com chá verde e gengibre. Em breve.</p>",
			price: "18.90", stock: 24, status: "draft", vendor: "Fermentados Raiz", productType: "Bebida", tags: []string{"kombucha", "fermentado"},
			categories: []string{"Bebidas"}, attributes: map[string]any{"organico": true, "conservacao": "Refrigerado"},
			images: []image{{"kombucha.png", "Garrafa de kombucha"}}},
	},
}

// fill makes a company's catalog as its owner: the categories, the
// attributes, then the products, whose images are at imagesURL.
func fill(ctx context.Context, svc *service.Service, tenantID, ownerEmail string, s *shop, imagesURL string) error {
	caller, err := svc.Operator().ActAs(ctx, ownerEmail, "demo data")
	if err != nil {
		return err
	}
	a, err := svc.Access(ctx, caller, tenantID)
	if err != nil {
		return err
	}
	cat := catalog.New(svc)
	ids := map[string]string{}
	for _, c := range s.categories {
		parent := ids[c.parent]
		made, err := cat.CreateCategory(ctx, a, catalog.CategoryFields{Name: &c.name, ParentID: &parent})
		if err != nil {
			return fmt.Errorf("category %s: %w", c.name, err)
		}
		ids[c.name] = made.ID
	}
	for _, at := range s.attributes {
		f := catalog.AttributeFields{Key: at.key, Name: &at.name, Type: at.typ, Public: &at.public}
		if at.values != nil {
			f.Values = &at.values
		}
		if _, err := cat.CreateAttribute(ctx, a, f); err != nil {
			return fmt.Errorf("attribute %s: %w", at.key, err)
		}
	}
	for _, p := range s.products {
		in := catalog.NewProduct{Name: p.name, Description: p.description, Status: p.status, Vendor: p.vendor, ProductType: p.productType,
			Tags: p.tags, Options: p.options, Attributes: p.attributes}
		for _, c := range p.categories {
			in.CategoryIDs = append(in.CategoryIDs, ids[c])
		}
		for _, im := range p.images {
			in.Media = append(in.Media, vitrine.Media{URL: imagesURL + im.file, Alt: im.alt})
		}
		vs := p.variants
		switch {
		case vs == nil && p.compareAt == "":
			in.SKU, in.Price, in.Stock = p.sku, p.price, p.stock // the seed's form: one variant, at the top
		case vs == nil:
			vs = []variant{{sku: p.sku, price: p.price, compareAt: p.compareAt, stock: p.stock}}
		}
		for _, v := range vs {
			nv := catalog.NewVariant{SKU: v.sku, Options: v.options, Price: v.price, CompareAtPrice: v.compareAt, Stock: v.stock}
			if v.image != "" {
				nv.Image = imagesURL + v.image
			}
			in.Variants = append(in.Variants, nv)
		}
		if _, err := cat.CreateProduct(ctx, a, in, ""); err != nil && vitrine.TypeOf(err) != vitrine.ConflictError {
			return fmt.Errorf("%s: %w", p.name, err)
		}
	}
	return nil
}
