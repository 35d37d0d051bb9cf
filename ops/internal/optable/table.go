package optable

// Class is the element types an op is defined for.
type Class uint8

const (
	Float  Class = iota // floating-point types only
	Signed              // signed integers and floating-point types
	All                 // every element type
)

// Unary is one elementwise op of one operand.
//
// Go is the host kernel for floating-point types: a Go expression of
// float64 x (package math, or a helper of package ops). Float16 and
// BFloat16 compute in float32 and round after every op. GoSigned and
// GoUnsigned are the integer kernels, expressions of x of the element
// type ("x": the identity, a copy), for ops whose Class takes integers.
//
// CL, CLSigned and CLUnsigned are the device expressions in OpenCL C,
// shared by the op-by-op kernels and fused kernels: $a is the operand, $C
// the compute type, $S the storage type, $W the wrapping unsigned type.
//
// Maps are the Go functions (by the suffix of their symbol) that the
// engine's Map runs as this op on the device.
type Unary struct {
	Name                 string // OpName and its String
	Doc                  string // OpName's comment after "Unary stores "
	Note                 string // appended to Doc in OpName's comment, or ""
	Class                Class
	Costly               bool // transcendental: the host splits it finer
	Go                   string
	GoSigned, GoUnsigned string
	CL                   string
	CLSigned, CLUnsigned string
	Maps                 []string
}

// Unaries are the unary ops in enum order: append new ones (the order is
// the UnaryOp values).
var Unaries = []Unary{
	{Name: "Abs", Doc: "|a| in dst.", Class: All, Go: "math.Abs(x)", GoSigned: "max(x, -x)", GoUnsigned: "x",
		CL: "fabs($a)", CLSigned: "($a < 0 ? ($S)(0 - ($W)$a) : $a)", CLUnsigned: "$a",
		Maps: []string{"math.Abs", "math32.Abs"}},
	{Name: "Neg", Doc: "−a in dst.", Class: Signed, Go: "-x", GoSigned: "-x",
		CL: "(-$a)", CLSigned: "(($S)(0 - ($W)$a))"},
	{Name: "Sqrt", Doc: "√a in dst.", Class: Float, Go: "math.Sqrt(x)", CL: "sqrt($a)",
		Maps: []string{"math.Sqrt", "math32.Sqrt"}},
	{Name: "Exp", Doc: "e^a in dst.", Class: Float, Costly: true, Go: "math.Exp(x)", CL: "exp($a)",
		Maps: []string{"math.Exp", "math32.Exp"}},
	{Name: "Log", Doc: "the natural logarithm of a in dst.", Class: Float, Costly: true, Go: "math.Log(x)", CL: "log($a)",
		Maps: []string{"math.Log", "math32.Log"}},
	{Name: "Tanh", Doc: "tanh(a) in dst.", Class: Float, Costly: true, Go: "math.Tanh(x)", CL: "tanh($a)",
		Maps: []string{"gorgonia.org/gorgonia._tanhf64", "gorgonia.org/gorgonia._tanhf32", "math.Tanh", "math32.Tanh"}},
	{Name: "Sin", Doc: "sin(a) in dst (radians).", Class: Float, Costly: true, Go: "math.Sin(x)", CL: "sin($a)",
		Maps: []string{"math.Sin", "math32.Sin"}},
	{Name: "Cos", Doc: "cos(a) in dst (radians).", Class: Float, Costly: true, Go: "math.Cos(x)", CL: "cos($a)",
		Maps: []string{"math.Cos", "math32.Cos"}},
	{Name: "Tan", Doc: "tan(a) in dst (radians).", Class: Float, Costly: true, Go: "math.Tan(x)", CL: "tan($a)"},
	{Name: "Asin", Doc: "arcsin(a) in dst; NaN outside [−1, 1].", Class: Float, Costly: true, Go: "math.Asin(x)", CL: "asin($a)"},
	{Name: "Acos", Doc: "arccos(a) in dst; NaN outside [−1, 1].", Class: Float, Costly: true, Go: "math.Acos(x)", CL: "acos($a)"},
	{Name: "Atan", Doc: "arctan(a) in dst.", Class: Float, Costly: true, Go: "math.Atan(x)", CL: "atan($a)"},
	{Name: "Sinh", Doc: "sinh(a) in dst.", Class: Float, Costly: true, Go: "math.Sinh(x)", CL: "sinh($a)"},
	{Name: "Cosh", Doc: "cosh(a) in dst.", Class: Float, Costly: true, Go: "math.Cosh(x)", CL: "cosh($a)"},
	{Name: "Sigmoid", Doc: "the logistic function 1/(1+e^−a) in dst.",
		Class: Float, Costly: true, Go: "sigmoid64(x)", CL: "(($C)1 / (($C)1 + exp(-$a)))",
		Maps: []string{"gorgonia.org/gorgonia._sigmoidf64", "gorgonia.org/gorgonia._sigmoidf32"}},
	// max(x,0) + log1p(e^−|x|) never overflows; fmax drops a NaN, the
	// log1p term keeps it
	{Name: "Softplus", Doc: "log(1+e^a) in dst (NumPy's logaddexp(0, a)), computed as\nmax(a,0)+log1p(e^−|a|) so that it never overflows.",
		Class: Float, Costly: true, Go: "softplus64(x)", CL: "(fmax($a, ($C)0) + log1p(exp(-fabs($a))))"},
	{Name: "Relu", Doc: "max(a, 0) in dst; a NaN stays NaN.",
		Class: All, Go: "relu64(x)", GoSigned: "max(x, 0)", GoUnsigned: "x",
		CL: "($a > 0 || isnan($a) ? $a : ($C)0)", CLSigned: "($a < 0 ? ($S)0 : $a)", CLUnsigned: "$a"},
	{Name: "Floor", Doc: "the largest integer ≤ a in dst.", Class: All, Go: "math.Floor(x)", GoSigned: "x", GoUnsigned: "x",
		CL: "floor($a)", CLSigned: "$a", CLUnsigned: "$a"},
	{Name: "Ceil", Doc: "the smallest integer ≥ a in dst.", Class: All, Go: "math.Ceil(x)", GoSigned: "x", GoUnsigned: "x",
		CL: "ceil($a)", CLSigned: "$a", CLUnsigned: "$a"},
	// rint: the default rounding mode, halves to even
	{Name: "Round", Doc: "a rounded to the nearest integer in dst, halves to even\n(NumPy's round with no decimals, and rint: 2.5 gives 2, −0.5 gives −0).",
		Class: All, Go: "math.RoundToEven(x)", GoSigned: "x", GoUnsigned: "x",
		CL: "rint($a)", CLSigned: "$a", CLUnsigned: "$a"},
	{Name: "Trunc", Doc: "a rounded toward zero in dst.", Class: All, Go: "math.Trunc(x)", GoSigned: "x", GoUnsigned: "x",
		CL: "trunc($a)", CLSigned: "$a", CLUnsigned: "$a"},
	// OpenCL's sign gives 0 for NaN: NumPy's gives NaN
	{Name: "Sign", Doc: "−1, 0 or 1 in dst by the sign of a (NaN for NaN, 0 for ±0;\nNumPy's sign).",
		Class: All, Go: "sign64(x)", GoSigned: "signInt(x)", GoUnsigned: "min(x, 1)",
		CL:       "($a > 0 ? ($C)1 : $a < 0 ? ($C)-1 : $a == 0 ? ($C)0 : $a)",
		CLSigned: "(($S)(($a > 0) - ($a < 0)))", CLUnsigned: "(($S)($a != 0))"},
	{Name: "Erf", Doc: "the error function erf(a) = 2/√π ∫₀^a e^(−t²) dt in dst.",
		Class: Float, Costly: true, Go: "math.Erf(x)", CL: "erf($a)",
		Maps: []string{"math.Erf", "math32.Erf"}},
	{Name: "Expm1", Doc: "e^a − 1 in dst, accurate for a near 0.",
		Class: Float, Costly: true, Go: "math.Expm1(x)", CL: "expm1($a)",
		Maps: []string{"math.Expm1", "math32.Expm1"}},
	{Name: "Log1p", Doc: "log(1 + a) in dst, accurate for a near 0; NaN below −1.",
		Class: Float, Costly: true, Go: "math.Log1p(x)", CL: "log1p($a)",
		Maps: []string{"math.Log1p", "math32.Log1p"}},
}
