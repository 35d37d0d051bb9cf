package optable

// Binary is one elementwise op of two operands.
//
// Go and GoInt are the host kernels for floating-point types and for
// integers: Go expressions of x and y of the element type; GoVec, when
// set, names a func(d, a, b []T) of package ops that is the kernel for
// every type instead.
//
// CL, CLSigned and CLUnsigned are the device expressions in OpenCL C, as
// for Unary, over $a and $b; Helper, HelperSigned and HelperUnsigned are
// the C functions they call (templated alike), written once per program.
// Vec is the expression over 16-byte vectors of the dense kernel
// (bin_NAME_vec), "" for none; VecInt says it serves integer types too.
type Binary struct {
	Const                                string // OpConst; "": Name
	Name                                 string // the op's String
	Doc                                  string // the constant's comment after "Binary stores "
	Class                                Class  // Float or All
	Costly                               bool
	Go, GoInt, GoVec                     string
	CL, CLSigned, CLUnsigned             string
	Helper, HelperSigned, HelperUnsigned string
	Vec                                  string
	VecInt                               bool
}

// the remainder helpers: NumPy's npy_divmod on floats (fmod, then the
// divisor's sign; x mod 0 is NaN); floored on integers, where x mod 0 and
// x mod −1 are 0 (the latter would overflow as MIN % −1)
const (
	modF = `inline $C mod_f_$C($C a, $C b) {
	$C m = fmod(a, b);
	if (b == 0) return m;
	if (m != 0) { if ((b < 0) != (m < 0)) m += b; }
	else m = copysign(($C)0, b);
	return m;
}
`
	modSigned = `inline $S mod_i_$S($S a, $S b) {
	if (b == 0 || b == -1) return ($S)0;
	$S r = a % b;
	return r != 0 && ((r < 0) != (b < 0)) ? ($S)(r + b) : r;
}
`
	modUnsigned = "inline $S mod_i_$S($S a, $S b) { return b == 0 ? ($S)0 : ($S)(a % b); }\n"
)

// Binaries are the binary ops in enum order: append new ones.
var Binaries = []Binary{
	{Name: "Add", Doc: "a + b in dst, broadcasting a and b to dst's shape.", Class: All,
		Go: "x + y", GoInt: "x + y",
		CL: "($a + $b)", CLSigned: "(($S)(($W)$a + ($W)$b))", CLUnsigned: "(($S)(($W)$a + ($W)$b))",
		Vec: "($a + $b)", VecInt: true},
	{Name: "Sub", Doc: "a − b in dst, broadcasting a and b to dst's shape.", Class: All,
		Go: "x - y", GoInt: "x - y",
		CL: "($a - $b)", CLSigned: "(($S)(($W)$a - ($W)$b))", CLUnsigned: "(($S)(($W)$a - ($W)$b))",
		Vec: "($a - $b)", VecInt: true},
	{Name: "Mul", Doc: "a · b in dst, broadcasting a and b to dst's shape.", Class: All,
		Go: "x * y", GoInt: "x * y",
		CL: "($a * $b)", CLSigned: "(($S)(($W)$a * ($W)$b))", CLUnsigned: "(($S)(($W)$a * ($W)$b))",
		Vec: "($a * $b)", VecInt: true},
	{Name: "Div", Doc: "a / b in dst, broadcasting a and b to dst's shape.", Class: All,
		Go: "x / y", GoInt: "divInt(x, y)",
		CL:         "($a / $b)",
		CLSigned:   "($b == 0 ? ($S)0 : $b == -1 ? ($S)(0 - ($W)$a) : ($S)($a / $b))",
		CLUnsigned: "($b == 0 ? ($S)0 : ($S)($a / $b))",
		Vec:        "($a / $b)"},
	{Const: "Min", Name: "Minimum", Doc: "the elementwise min(a, b) in dst (numpy's minimum).", Class: All,
		Go: "min(x, y)", GoInt: "min(x, y)",
		CL:       "(isnan($a) || isnan($b) ? $a + $b : ($a < $b ? $a : $b))",
		CLSigned: "($a < $b ? $a : $b)", CLUnsigned: "($a < $b ? $a : $b)"},
	{Const: "Max", Name: "Maximum", Doc: "the elementwise max(a, b) in dst (numpy's maximum).", Class: All,
		Go: "max(x, y)", GoInt: "max(x, y)",
		CL:       "(isnan($a) || isnan($b) ? $a + $b : ($a > $b ? $a : $b))",
		CLSigned: "($a > $b ? $a : $b)", CLUnsigned: "($a > $b ? $a : $b)"},
	{Name: "Pow", Doc: "a raised to b in dst, for floating-point types.", Class: Float, Costly: true,
		Go: "T(math.Pow(float64(x), float64(y)))", CL: "pow($a, $b)"},
	{Name: "Mod", Doc: "the floored remainder of a / b in dst, the sign of b's (NumPy's\nmod and remainder, Python's %): −7 mod 3 = 2, 7 mod −3 = −2. For\nfloats x mod 0 is NaN; for integers it is 0.",
		Class: All, Costly: true, GoVec: "modVec",
		CL: "mod_f_$C($a, $b)", CLSigned: "mod_i_$S($a, $b)", CLUnsigned: "mod_i_$S($a, $b)",
		Helper: modF, HelperSigned: modSigned, HelperUnsigned: modUnsigned},
}
