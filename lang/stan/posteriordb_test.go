package stan_test

import (
	"context"
	"encoding/csv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/internal/testtier"
	"github.com/mscppl/mscppl/lang"
	"github.com/stretchr/testify/require"
)

// posteriors are the thirteen posteriordb posteriors of examples/posteriordb,
// each with posteriordb's model.stan unchanged beside the line-by-line
// .msc translation and the unchanged data.json.
var posteriors = []string{
	"arK-arK",
	"bball_drive_event_1-hmm_drive_1",
	"diamonds-diamonds",
	"earnings-logearn_interaction",
	"eight_schools-eight_schools_noncentered",
	"garch-garch11",
	"gp_pois_regr-gp_regr",
	"hmm_example-hmm_example",
	"hudson_lynx_hare-lotka_volterra",
	"kidiq-kidscore_interaction",
	"low_dim_gauss_mix-low_dim_gauss_mix",
	"nes2000-nes",
	"sblri-blr",
}

// TestPosteriordbLogDensity loads each model.stan, its model.msc and the
// .msc text mscppl translate prints for it (parsed by lang.Parse) on the
// same data, and compares the log joint and its gradient at three random
// unconstrained points (fixed seed): the two front ends and the round
// trip must give one density, to 1e-10 relative.
func TestPosteriordbLogDensity(t *testing.T) {
	for _, name := range posteriors {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("..", "..", "examples", "posteriordb", name)
			data := filepath.Join(dir, "data.json")
			path := filepath.Join(dir, "model.stan")
			ms, err := infer.Load(path, data)
			require.NoError(t, err)
			mm, err := infer.Load(filepath.Join(dir, "model.msc"), data)
			require.NoError(t, err)
			text := lang.FormatFile(ms.File)
			mt, err := infer.LoadSource("translated.msc", []byte(text), data)
			require.NoError(t, err, text)
			d := ms.Comp.Dim()
			require.Equal(t, mm.Comp.Dim(), d, "unconstrained dimensions")
			require.Equal(t, mt.Comp.Dim(), d, "unconstrained dimensions")
			rng := rand.New(rand.NewPCG(34, 1))
			z := make([]float64, d)
			gs, gm, gt := make([]float64, d), make([]float64, d), make([]float64, d)
			for range 3 {
				for i := range z {
					z[i] = rng.NormFloat64()
				}
				ls := ms.Comp.GradLogJoint(z, gs)
				lm := mm.Comp.GradLogJoint(z, gm)
				lt := mt.Comp.GradLogJoint(z, gt)
				require.False(t, math.IsNaN(ls) || math.IsInf(ls, 0), "log joint %g at %v", ls, z)
				requireClose(t, lm, ls, "log joint at %v", z)
				requireClose(t, ls, lt, "log joint of the translation at %v", z)
				for i := range gs {
					requireClose(t, gm[i], gs[i], "gradient[%d] at %v", i, z)
					requireClose(t, gs[i], gt[i], "gradient[%d] of the translation at %v", i, z)
				}
			}
		})
	}
}

func requireClose(t *testing.T, want, got float64, format string, args ...any) {
	t.Helper()
	if math.Abs(got-want) > 1e-10*math.Max(1, math.Abs(want)) {
		t.Fatalf("got %.17g, want %.17g: "+format, append([]any{got, want}, args...)...)
	}
}

// TestPosteriordbRun fits each model.stan at the defaults and compares
// each reported component with the posteriordb reference, as
// infer.TestPosteriordb does for the .msc translations: the mean within
// 0.1 reference sd and the sd within 10%, or else the run says it did not
// converge and warns.
func TestPosteriordbRun(t *testing.T) {
	testtier.Skip(t)
	for _, name := range posteriors {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("..", "..", "examples", "posteriordb", name)
			m, err := infer.Load(filepath.Join(dir, "model.stan"), filepath.Join(dir, "data.json"))
			require.NoError(t, err)
			f, err := infer.Fit(context.Background(), m, infer.Options{})
			require.NoError(t, err)
			s := f.Summary
			ref := readReference(t, filepath.Join(dir, "reference.csv"))
			dm, ds, n := 0.0, 0.0, 0
			for name, want := range ref {
				got, ok := s.Latent[name]
				if !ok {
					continue
				}
				n++
				dm = math.Max(dm, math.Abs(got.Mean-want.Mean)/want.SD)
				ds = math.Max(ds, math.Abs(got.SD/want.SD-1))
			}
			require.Greater(t, n, 0, "no reported component matches the reference's names")
			t.Logf("%d components: mean error %.3f sd, sd error %.1f%%, converged %v, %.1fs", n, dm, 100*ds, s.Converged, s.ElapsedSeconds)
			if dm > 0.1 || ds > 0.1 {
				require.False(t, s.Converged, "a miss must not be reported as converged")
				require.NotEmpty(t, s.Warnings)
			}
		})
	}
}

// readReference reads the name,mean,sd[,...] rows of a posteriordb
// reference.
func readReference(t *testing.T, path string) map[string]infer.Moments {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	out := map[string]infer.Moments{}
	for _, r := range rows[1:] {
		m, err1 := strconv.ParseFloat(r[1], 64)
		s, err2 := strconv.ParseFloat(r[2], 64)
		require.NoError(t, err1)
		require.NoError(t, err2)
		out[r[0]] = infer.Moments{Mean: m, SD: s}
	}
	return out
}

// TestRowVectorMeaning: Stan programs with row_vectors have the log
// density and gradient of .msc programs: testdata/rows.stan (a matrix row
// times a vector, a row_vector parameter times a vector and times a
// matrix, a transposed vector) those of rows.msc, the same model written
// with vectors and dot_product, and of rows_line.msc, written line by
// line with the language's row_vector; dirichlet_row.stan (posteriordb's
// hmm_drive_0, dirichlet_lpdf(theta[k] | alpha[k, :]')) those of its line
// by line dirichlet_row.msc; outer.stan's outer products v * r those of
// outer.msc, which writes them out.
func TestRowVectorMeaning(t *testing.T) {
	for _, c := range []struct {
		stan, msc, data string
		dim             int
	}{
		{"rows.stan", "rows.msc", "rows.json", 4},
		{"rows.stan", "rows_line.msc", "rows.json", 4},
		{"dirichlet_row.stan", "dirichlet_row.msc", "dirichlet_row.json", 2},
		{"outer.stan", "outer.msc", "outer.json", 3},
	} {
		t.Run(c.msc, func(t *testing.T) {
			data := filepath.Join("testdata", c.data)
			ms, err := infer.Load(filepath.Join("testdata", c.stan), data)
			require.NoError(t, err)
			mm, err := infer.Load(filepath.Join("testdata", c.msc), data)
			require.NoError(t, err)
			d := ms.Comp.Dim()
			require.Equal(t, c.dim, d)
			require.Equal(t, d, mm.Comp.Dim())
			rng := rand.New(rand.NewPCG(34, 3))
			z := make([]float64, d)
			gs, gm := make([]float64, d), make([]float64, d)
			for range 3 {
				for i := range z {
					z[i] = rng.NormFloat64()
				}
				requireClose(t, mm.Comp.GradLogJoint(z, gm), ms.Comp.GradLogJoint(z, gs), "log joint at %v", z)
				for i := range gs {
					requireClose(t, gm[i], gs[i], "gradient[%d] at %v", i, z)
				}
			}
		})
	}
}
