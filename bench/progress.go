package bench

import (
	"fmt"
	"io"
	"os"
	"time"
)

// LineProgress returns a Config.Progress that writes "[ 3/26 12s] what"
// to w: on one rewritten line when w is a terminal, one line per step
// otherwise (logs, tee).
func LineProgress(w io.Writer) func(done, total int, what string) {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil {
			tty = st.Mode()&os.ModeCharDevice != 0
		}
	}
	start := time.Now()
	return func(done, total int, what string) {
		line := fmt.Sprintf("[%*d/%d %4.0fs] %s", len(fmt.Sprint(total)), done, total, time.Since(start).Seconds(), what)
		if tty {
			fmt.Fprintf(w, "\r\033[K%s", line)
			if done == total {
				fmt.Fprintln(w)
			}
			return
		}
		fmt.Fprintln(w, line)
	}
}
