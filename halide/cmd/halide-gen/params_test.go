package main

import "testing"

func TestGoParamAndScalarDoc(t *testing.T) {
	for in, want := range map[string]string{"row_pair_sum": "rowPairSum", "input": "input", "blur_y": "blurY", "_x": "x", "type": "typeArg", "a__b": "aB", "user_id": "userID", "gpu_out": "gpuOut"} {
		if got := goParam(in); got != want {
			t.Errorf("goParam(%q) = %q, want %q", in, got, want)
		}
	}
	for _, c := range []struct {
		a    arg
		want string
	}{
		{arg{Def: "1", Min: "0", Max: "8", Estimate: "2"}, " (default 1, range [0, 8], estimate 2)"},
		{arg{Min: "-3"}, " (min -3)"},
		{arg{Max: "3"}, " (max 3)"},
		{arg{}, ""},
	} {
		if got := scalarDoc(c.a); got != c.want {
			t.Errorf("scalarDoc(%+v) = %q, want %q", c.a, got, c.want)
		}
	}
}
