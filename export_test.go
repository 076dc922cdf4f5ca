package vitrine

// ConvertBig is Convert by big integers alone, for the tests that hold
// the arithmetic in machine words to it.
func (cv *Converter) ConvertBig(minor int64, fromScale int) (int64, bool) {
	fits := cv.fits
	cv.fits = false
	defer func() { cv.fits = fits }()
	return cv.Convert(minor, fromScale)
}
