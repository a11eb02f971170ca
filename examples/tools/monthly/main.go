// Command monthly aggregates the daily DEM/GBP log-returns into a monthly
// series in the spirit of the paper's Section 5.3: consecutive blocks of 21
// trading days are summed (log-returns add up), and a trailing partial block
// is dropped.
//
//	go run ./examples/tools/monthly examples/data/dem2gbp.csv > examples/data/dem2gbp_monthly.csv
package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strconv"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "monthly:", err)
		os.Exit(1)
	}
}

func run(args []string, w io.Writer) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: monthly DAILY.csv")
	}
	f, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return err
	}
	if len(recs) < 2 {
		return fmt.Errorf("%s: no data rows", args[0])
	}
	const block = 21
	out := csv.NewWriter(w)
	if err := out.Write(recs[0][:1]); err != nil {
		return err
	}
	sum, n := 0.0, 0
	for i, r := range recs[1:] {
		x, err := strconv.ParseFloat(r[0], 64)
		if err != nil {
			return fmt.Errorf("%s: row %d: %v", args[0], i+2, err)
		}
		sum += x
		n++
		if n == block {
			if err := out.Write([]string{strconv.FormatFloat(sum, 'g', 10, 64)}); err != nil {
				return err
			}
			sum, n = 0, 0
		}
	}
	out.Flush()
	return out.Error()
}
