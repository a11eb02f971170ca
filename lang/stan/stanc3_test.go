package stan

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestStanc3Survey measures the front end on stanc3's integration tests
// (test/integration/good and bad of github.com/stan-dev/stanc3, checked out
// at $MSCPPL_STANC3): the share of good programs that parse and lower, by
// folder, with the most common reasons for the rest, and the bad programs
// it accepts. It only logs (package ir's checks, which need each program's
// data, are not run): go test ./lang/stan -run Stanc3 -v.
func TestStanc3Survey(t *testing.T) {
	root := os.Getenv("MSCPPL_STANC3")
	if root == "" {
		t.Skip("set MSCPPL_STANC3 to a checkout of stanc3's test/integration")
	}
	digits := regexp.MustCompile(`"[^"]*"|\([^)]*\)|[0-9]+`)
	for _, kind := range []string{"good", "bad"} {
		type tally struct{ ok, all int }
		byDir := map[string]*tally{}
		reasons := map[string]int{}
		var accepted []string
		_ = filepath.WalkDir(filepath.Join(root, kind), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".stan") {
				return nil
			}
			rel, _ := filepath.Rel(filepath.Join(root, kind), path)
			dir := filepath.Dir(rel)
			if byDir[dir] == nil {
				byDir[dir] = &tally{}
			}
			byDir[dir].all++
			src, _ := os.ReadFile(path)
			_, _, err = Parse(rel, src)
			if err == nil {
				byDir[dir].ok++
				accepted = append(accepted, rel)
				return nil
			}
			msg := err.Error()
			if i := strings.Index(msg, ": "); i >= 0 {
				msg = msg[i+2:]
			}
			if i := strings.IndexByte(msg, '\n'); i >= 0 {
				msg = msg[:i]
			}
			reasons[digits.ReplaceAllString(msg, "_")]++
			return nil
		})
		var dirs []string
		ok, all := 0, 0
		for d, c := range byDir {
			dirs = append(dirs, d)
			ok += c.ok
			all += c.all
		}
		sort.Strings(dirs)
		t.Logf("%s: %d of %d accepted by the front end (%.0f%%)", kind, ok, all, 100*float64(ok)/float64(max(all, 1)))
		for _, d := range dirs {
			t.Logf("  %-40s %4d / %4d", d, byDir[d].ok, byDir[d].all)
		}
		type rc struct {
			r string
			n int
		}
		var rs []rc
		for r, n := range reasons {
			rs = append(rs, rc{r, n})
		}
		sort.Slice(rs, func(i, j int) bool { return rs[i].n > rs[j].n || rs[i].n == rs[j].n && rs[i].r < rs[j].r })
		for _, r := range rs[:min(12, len(rs))] {
			t.Logf("  %5d  %s", r.n, r.r)
		}
		if kind == "bad" {
			t.Logf("bad programs the front end accepts: %s", fmt.Sprint(len(accepted)))
		}
	}
}
