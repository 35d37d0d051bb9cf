// Package draw seeds the generated tests. A run draws its cases from one
// seed: the UTC day number unless -draw.seed is given. So each run stays
// small enough for a busy 2-core machine while successive days cover new
// cases, and a failure replays exactly with the seed it logs.
//
//	go test -run TestDiff ./ops -draw.seed 20427   # replay one day's cases
//	go test -run TestDiff ./ops -draw.all          # every case the test knows
package draw
