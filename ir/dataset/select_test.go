package dataset

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSelect(t *testing.T) {
	tb, err := Read("d.csv", strings.NewReader("V1,V2,Class,V10,w*\n1,2,0,3,9\n4,5,1,6,9\n"))
	require.NoError(t, err)
	cases := []struct {
		name string
		sel  Selection
		want []int
		err  string
	}{
		{"column", Selection{Kind: SelColumn, Names: []string{"Class"}}, []int{2}, ""},
		{"columns in given order", Selection{Kind: SelColumn, Names: []string{"V10", "V1"}}, []int{3, 0}, ""},
		{"glob-like column name", Selection{Kind: SelColumn, Names: []string{"w*"}}, []int{4}, ""},
		{"missing column, did you mean", Selection{Kind: SelColumn, Names: []string{"Clas"}}, nil,
			`d.csv has no column "Clas" (did you mean "Class"?)`},
		{"missing column, case", Selection{Kind: SelColumn, Names: []string{"class"}}, nil,
			`d.csv has no column "class" (did you mean "Class"?)`},
		{"missing column, transposition", Selection{Kind: SelColumn, Names: []string{"Calss"}}, nil,
			`d.csv has no column "Calss" (did you mean "Class"?)`},
		{"missing column, nothing close", Selection{Kind: SelColumn, Names: []string{"glucose"}}, nil,
			`d.csv has no column "glucose" (its columns are "V1", "V2", "Class", "V10", "w*")`},
		{"empty selection", Selection{Kind: SelColumn}, nil, "empty column selection"},
		{"selected twice", Selection{Kind: SelColumn, Names: []string{"V1", "V1"}}, nil, `column "V1" is selected twice`},
		{"glob", Selection{Kind: SelGlob, Pattern: "V*"}, []int{0, 1, 3}, ""},
		{"glob ?", Selection{Kind: SelGlob, Pattern: "V?"}, []int{0, 1}, ""},
		{"glob class", Selection{Kind: SelGlob, Pattern: "V[12]*"}, []int{0, 1, 3}, ""},
		{"glob everything", Selection{Kind: SelGlob, Pattern: "*"}, []int{0, 1, 2, 3, 4}, ""},
		{"glob matches nothing", Selection{Kind: SelGlob, Pattern: "X*"}, nil,
			`no column of d.csv matches "X*" (its columns are "V1", "V2", "Class", "V10", "w*")`},
		{"glob wrong case", Selection{Kind: SelGlob, Pattern: "v*"}, nil,
			`no column of d.csv matches "v*" (matching is case-sensitive; ignoring case, 3 column(s) would match)`},
		{"bad glob", Selection{Kind: SelGlob, Pattern: "V[1"}, nil,
			`bad column pattern "V[1": syntax error in pattern (patterns use *, ? and [...] as in path.Match)`},
		{"all except", Selection{Kind: SelAllExcept, Names: []string{"Class"}}, []int{0, 1, 3, 4}, ""},
		{"all except several", Selection{Kind: SelAllExcept, Names: []string{"w*", "Class", "V1"}}, []int{1, 3}, ""},
		{"all except nothing", Selection{Kind: SelAllExcept}, []int{0, 1, 2, 3, 4}, ""},
		{"all except repeated name", Selection{Kind: SelAllExcept, Names: []string{"Class", "Class"}}, []int{0, 1, 3, 4}, ""},
		{"all except glob", Selection{Kind: SelAllExcept, Names: []string{"V?"}}, []int{2, 3, 4}, ""},
		{"all except unknown", Selection{Kind: SelAllExcept, Names: []string{"Klass"}}, nil,
			`d.csv has no column "Klass" (did you mean "Class"?)`},
		{"all except glob matching nothing", Selection{Kind: SelAllExcept, Names: []string{"Z*"}}, nil,
			`no column of d.csv matches "Z*" (its columns are "V1", "V2", "Class", "V10", "w*")`},
		{"all except everything", Selection{Kind: SelAllExcept, Names: []string{"*"}}, nil,
			`no columns of d.csv are left after the exclusions`},
		{"bad kind", Selection{Kind: SelKind(9)}, nil, "unknown selection kind SelKind(9)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cols, err := tb.Select(c.sel)
			if c.err != "" {
				require.EqualError(t, err, c.err)
				var se *SelectError
				require.True(t, errors.As(err, &se))
				assert.Nil(t, cols)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, cols)
		})
	}
}

func TestSelectHints(t *testing.T) {
	wide, err := Read("w.csv", strings.NewReader("c1,c2,c3,c4,c5,c6,c7,c8,c9,c10,c11,c12\n1,2,3,4,5,6,7,8,9,10,11,12\n"))
	require.NoError(t, err)
	_, err = wide.Select(Selection{Kind: SelColumn, Names: []string{"zzz"}})
	require.EqualError(t, err, `w.csv has no column "zzz" (its 12 columns are "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9", "c10", ...)`)

	one, err := Read("o.csv", strings.NewReader("DEM2GBP\n1\n"))
	require.NoError(t, err)
	_, err = one.Select(Selection{Kind: SelColumn, Names: []string{"y"}})
	require.EqualError(t, err, `o.csv has no column "y" (its only column is "DEM2GBP")`)

	noHeader, err := Read("n.csv", strings.NewReader("6,148,72\n1,85,66\n"))
	require.NoError(t, err)
	_, err = noHeader.Select(Selection{Kind: SelColumn, Names: []string{"glucose"}})
	require.EqualError(t, err, `n.csv has no column "glucose" (the first line of the file must name the columns, and it looks like data)`)

	var se *SelectError
	require.True(t, errors.As(err, &se))
	assert.Equal(t, `n.csv has no column "glucose"`, se.Msg)
	assert.Equal(t, "the first line of the file must name the columns, and it looks like data", se.Hint)
}

func TestSuggest(t *testing.T) {
	header := []string{"pregnant", "glucose", "pressure", "triceps", "insulin", "mass", "pedigree", "age", "diabetes", "Class", "V1", "V10"}
	cases := []struct{ name, want string }{
		{"Clas", "Class"},
		{"class", "Class"},
		{"CLASS", "Class"},
		{"Calss", "Class"},
		{"glucse", "glucose"},
		{"gluocse", "glucose"},
		{"presure", "pressure"},
		{"diabetis", "diabetes"},
		{"v1", "V1"},
		{"V11", "V1"}, // ties go to the first in header order
		{"ag", "age"},
		{"x", ""},
		{"zzzz", ""},
		{"glu", ""},
		{"", ""},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, suggest(c.name, header), c.name)
	}
	assert.Equal(t, "gamma", suggest("gxmxa", []string{"gamma"}))
	assert.Equal(t, "", suggest("gxxxa", []string{"gamma"}))
	assert.Equal(t, "", suggest("a", nil))
}

func TestEditDistance(t *testing.T) {
	cases := []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"ab", "ba", 1},
		{"Class", "class", 0}, {"abcd", "acbd", 1}, {"größe", "grösse", 2}, {"ca", "abc", 3},
	}
	for _, c := range cases {
		assert.Equal(t, c.d, editDistance([]rune(c.a), []rune(c.b), 100), "%s/%s", c.a, c.b)
		assert.Equal(t, c.d, editDistance([]rune(c.b), []rune(c.a), 100), "%s/%s", c.b, c.a)
		assert.Equal(t, min(c.d, 1), editDistance([]rune(c.a), []rune(c.b), 1), "bounded %s/%s", c.a, c.b)
	}
}

func TestIsGlob(t *testing.T) {
	for s, want := range map[string]bool{"V*": true, "V?": true, "V[12]": true, "Class": false, "a-b": false} {
		assert.Equal(t, want, IsGlob(s), s)
	}
	assert.Equal(t, "glob", SelGlob.String())
	assert.Equal(t, "column", SelColumn.String())
	assert.Equal(t, "all-except", SelAllExcept.String())
}

func TestSelectionDescribe(t *testing.T) {
	for _, c := range []struct {
		sel   Selection
		names []string
		want  string
	}{
		{Selection{Kind: SelColumn, Names: []string{"y"}}, []string{"y"}, `column "y" of d.csv`},
		{Selection{Kind: SelGlob, Pattern: "x*"}, []string{"x1", "x2"}, `columns x1, x2 of d.csv, matching "x*"`},
		{Selection{Kind: SelGlob, Pattern: "x*"}, []string{"x1"}, `column x1 of d.csv, matching "x*"`},
		{Selection{Kind: SelAllExcept, Names: []string{"y", "id"}}, []string{"a b", "c"}, `columns "a b", c of d.csv, all except "y", "id"`},
		{Selection{Kind: SelAllExcept, Names: []string{"y"}}, []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"},
			`columns a, b, c, ..., h, i of d.csv, all except "y"`},
	} {
		require.Equal(t, c.want, c.sel.Describe(c.names, "d.csv"))
	}
}
