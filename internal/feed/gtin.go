package feed

// GTIN returns a barcode that is a GTIN a product is traded under (the
// rule the feeds apply, which Google's structured data shares), or "".
func GTIN(barcode string) string { return gtin(barcode) }
