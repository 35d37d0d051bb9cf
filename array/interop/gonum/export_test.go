package gonum

// The raw blas64 conversions behind the mat ones, for the layout tests.
var (
	FromGeneral = fromGeneral
	ToGeneral   = toGeneral
	FromVector  = fromVector
	ToVector    = toVector
)
