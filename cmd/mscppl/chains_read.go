package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mscppl/mscppl/infer"
)

// readChains reads the chains' retained samples of the run in dir, the
// files output_1.csv, output_2.csv, ... in CmdStan's CSV layout: comment
// lines starting with #, a header (lp__ first, then Stan's names such as
// a.1 and L.2.1), then one numeric row per draw. It returns the header and
// chains[chain][column][draw]. Every file must have the same header.
//
// It is the plots' own small reader, kept behind this one function so
// that the package that writes these files can replace it.
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

// readStanCSV reads one CmdStan CSV file: # lines skipped, a header, rows
// of numbers; the error wraps os.ErrNotExist when there is no file.
func readStanCSV(path string) ([]string, [][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, err
		}
		return nil, nil, infer.FileError(path, "chain", err)
	}
	defer f.Close()
	var head []string
	var cols [][]float64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		fields := strings.Split(s, ",")
		if head == nil {
			head = fields
			cols = make([][]float64, len(head))
			continue
		}
		if len(fields) != len(head) {
			return nil, nil, userErrorf("it is written by mscppl run --out DIR", "%s:%d: %d values for %d columns", path, line, len(fields), len(head))
		}
		for j, v := range fields {
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return nil, nil, userErrorf("it is written by mscppl run --out DIR", "%s:%d: bad number %q", path, line, v)
			}
			cols[j] = append(cols[j], x)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, infer.FileError(path, "chain", err)
	}
	if head == nil || len(cols) == 0 || len(cols[0]) == 0 {
		return nil, nil, userErrorf("it is written by mscppl run --out DIR", "%s has no draws", path)
	}
	return head, cols, nil
}
