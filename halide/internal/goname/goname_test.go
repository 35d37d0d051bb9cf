package goname

import "testing"

func TestOf(t *testing.T) {
	for in, want := range map[string]string{
		"row_pair_sum": "rowPairSum",
		"input":        "input",
		"blur_y":       "blurY",
		"input.1":      "input1",
		"user_id":      "userID",
		"_private":     "private",
		"Upper_Case":   "upperCase",
		"type":         "typeArg",
		"func":         "funcArg",
		"len":          "lenArg",
		"2nd_input":    "arg2ndInput",
		"__x__y":       "xY",
		"":             "arg",
		"rgb_to_yuv":   "rgbToYuv",
		"gpu_output":   "gpuOutput",
		"out_gpu":      "outGPU",
	} {
		if got := Of(in); got != want {
			t.Errorf("Of(%q) = %q, want %q", in, got, want)
		}
	}
}
