package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/infer/cmdstan"
)

// readChains reads the chains' retained samples of the run in dir, the
// files output_1.csv, output_2.csv, ... in CmdStan's CSV layout: comment
// lines starting with #, a header (lp__ first, then Stan's names such as
// a.1 and L.2.1), then one numeric row per draw. It returns the header and
// chains[chain][column][draw]. Every file must have the same header.
func readChains(dir string) (names []string, chains [][][]float64, err error) {
	for k := 1; ; k++ {
		path := filepath.Join(dir, fmt.Sprintf("output_%d.csv", k))
		head, cols, err := readStanCSV(path)
		if errors.Is(err, os.ErrNotExist) {
			if k == 1 {
				return nil, nil, userErrorf("the chains' samples are written by mscppl run --out DIR", "cannot read the chain file %s: no such file", path)
			}
			return names, chains, nil
		}
		if err != nil {
			return nil, nil, err
		}
		if k == 1 {
			names = head
		} else if strings.Join(head, ",") != strings.Join(names, ",") {
			return nil, nil, userErrorf("every chain file of a run has the same columns", "%s: its columns differ from those of output_1.csv", path)
		}
		chains = append(chains, cols)
	}
}

// readStanCSV reads one CmdStan CSV file with infer/cmdstan's reader (the
// one that also reads CmdStan's own files) as columns; the error wraps
// os.ErrNotExist when there is no file.
func readStanCSV(path string) ([]string, [][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, err
		}
		return nil, nil, infer.FileError(path, "chain", err)
	}
	defer f.Close()
	cf, err := cmdstan.Read(f)
	if err != nil {
		return nil, nil, userErrorf("it is written by mscppl run --out DIR", "%s: %v", path, err)
	}
	if len(cf.Rows) == 0 {
		return nil, nil, userErrorf("it is written by mscppl run --out DIR", "%s has no draws", path)
	}
	cols := make([][]float64, len(cf.Columns))
	for j, name := range cf.Columns {
		cols[j] = cf.Column(name)
	}
	return cf.Columns, cols, nil
}
