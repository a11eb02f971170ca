package lower

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// hmmViterbi is Stan's generated quantities of posteriordb's hmm_example
// (the Viterbi path), written in derived { }: int arrays filled by
// back-pointers, an if on the latents choosing the best predecessor and
// indexes known only per draw (back_ptr[t + 1, z_star[t + 1]]), line by
// line as in posteriordb's model.stan: back_ptr[t, k] and z_star[N] are set
// only when a comparison succeeds (NaN until then, as in Stan).
const hmmViterbi = `derived {
  z_star: int[N]
  log_p_z_star: real
  {
    back_ptr: int[N, K]
    best_logp: matrix[N, K]
    for k in 1..K {
      best_logp[1, k] = normal_lpdf(y[1] | mu[k], 1)
    }
    for t in 2..N {
      for k in 1..K {
        best_logp[t, k] = negative_infinity()
        for j in 1..K {
          logp: real = best_logp[t - 1, j] + log(j == 1 ? theta1[k] : theta2[k]) + normal_lpdf(y[t] | mu[k], 1)
          if logp > best_logp[t, k] {
            back_ptr[t, k] = j
            best_logp[t, k] = logp
          }
        }
      }
    }
    log_p_z_star = max(best_logp[N])
    for k in 1..K {
      if best_logp[N, k] == log_p_z_star {
        z_star[N] = k
      }
    }
    for t in 1..(N - 1) {
      z_star[N - t] = back_ptr[N - t + 1, z_star[N - t + 1]]
    }
  }
}
`

// viterbi is the Viterbi path of a K-state HMM with normal(mu[k], 1)
// emissions and transition matrix theta (rows), starting from the
// emissions alone, and its log density.
func viterbi(y []float64, mu []float64, theta [][]float64) ([]int, float64) {
	n, k := len(y), len(mu)
	best := make([][]float64, n)
	bp := make([][]int, n)
	for t := range best {
		best[t], bp[t] = make([]float64, k), make([]int, k)
	}
	for j := 0; j < k; j++ {
		best[0][j] = logNormal(y[0], mu[j], 1)
	}
	for t := 1; t < n; t++ {
		for s := 0; s < k; s++ {
			best[t][s] = math.Inf(-1)
			for j := 0; j < k; j++ {
				if lp := best[t-1][j] + math.Log(theta[j][s]) + logNormal(y[t], mu[s], 1); lp > best[t][s] {
					best[t][s], bp[t][s] = lp, j
				}
			}
		}
	}
	path := make([]int, n)
	for s := 1; s < k; s++ {
		if best[n-1][s] > best[n-1][path[n-1]] {
			path[n-1] = s
		}
	}
	for t := n - 2; t >= 0; t-- {
		path[t] = bp[t+1][path[t+1]]
	}
	return path, best[n-1][path[n-1]]
}

// TestDerivedViterbi: the path decoded in derived { } is the Viterbi path
// computed here from the same draw's parameters, for draws far apart
// (different paths), compiled with and without the vectorised loops.
func TestDerivedViterbi(t *testing.T) {
	src := hmmHead + `  acc: vector[K]
  gamma: matrix[N, K]
  for k in 1..K {
    gamma[1, k] = normal_lpdf(y[1] | mu[k], 1)
  }
  for t in 2..N {
    for k in 1..K {
      for j in 1..K {
        acc[j] = gamma[t - 1, j] + log(j == 1 ? theta1[k] : theta2[k]) + normal_lpdf(y[t] | mu[k], 1)
      }
      gamma[t, k] = log_sum_exp(acc)
    }
  }
  target += log_sum_exp(gamma[N])
}
` + hmmViterbi
	for _, form := range []struct{ name, src string }{
		{"as in Stan", src},
		{"with back_ptr and z_star[N] set first", strings.Replace(strings.Replace(src, "negative_infinity()\n", "negative_infinity()\n        back_ptr[t, k] = 1\n", 1), "max(best_logp[N])\n", "max(best_logp[N])\n    z_star[N] = 1\n", 1)},
	} {
		t.Run(form.name, func(t *testing.T) {
			require.NotEqual(t, form.name == "as in Stan", strings.Contains(form.src, "z_star[N] = 1"))
			viterbiCheck(t, form.src)
		})
	}
}

func viterbiCheck(t *testing.T, src string) {
	vec, unrolled := compileBoth(t, src, hmmExampleData)
	m := vec.Model
	names := m.LatentNames()
	require.Contains(t, names, "z_star[100]")
	require.Contains(t, names, "log_p_z_star")
	for _, local := range []string{"back_ptr[1,1]", "best_logp[1,1]", "logp"} {
		require.NotContains(t, names, local, "a local of a scope or a loop is not reported")
	}
	y := m.Data[2].Value
	rng := rand.New(rand.NewPCG(7, 8))
	paths := map[string]bool{}
	for draw := 0; draw < 40; draw++ {
		u := make([]float64, m.LatentDim)
		for i := range u {
			u[i] = 1.5 * rng.NormFloat64()
		}
		for _, c := range []*Compiled{vec, unrolled} {
			x := make([]float64, m.XDim)
			c.Constrain(u, x)
			get := func(name string) []float64 {
				for _, v := range m.Latents {
					if v.Name == name {
						return x[v.XOffset : v.XOffset+v.Type.Len()]
					}
				}
				t.Fatalf("no latent %s", name)
				return nil
			}
			theta := [][]float64{get("theta1"), get("theta2")}
			want, lp := viterbi(y, get("mu"), theta)
			got := get("z_star")
			for i, s := range want {
				require.Equal(t, float64(s+1), got[i], "draw %d, z_star[%d]", draw, i+1)
			}
			require.InDelta(t, lp, get("log_p_z_star")[0], 1e-9*math.Abs(lp))
			var b strings.Builder
			for _, s := range want {
				b.WriteByte(byte('1' + s))
			}
			paths[b.String()] = true
		}
	}
	require.Greater(t, len(paths), 10, "the draws decode to different paths")
}

// TestDerivedPredictive: a posterior-predictive loop of NAME_rng calls
// in derived { }, on draws of mu from its exact posterior (normal prior,
// normal likelihood of known scale): each replicate has the predictive
// distribution N(m, v + s^2), and their sum, which shares mu, has
// variance 9 v + 3 s^2.
func TestDerivedPredictive(t *testing.T) {
	ys := []float64{1.2, 0.4, 2.5, 1.9, 0.8}
	src := `data { y: vector[N] }
latent { mu: real }
model {
  mu ~ normal(0, 2)
  y ~ normal(mu, 1.5)
}
derived {
  y_rep: vector[3]
  total: real = 0
  for i in 1..3 {
    y_rep[i] = normal_rng(mu, 1.5)
    total = total + y_rep[i]
  }
  above: int = 0
  if y_rep[1] > mu {
    above = 1
  }
}
`
	csv := "y\n"
	for _, y := range ys {
		csv += f64(y) + "\n"
	}
	c := compile(t, src, csv)
	c.SeedRNG(11)
	// the exact posterior of mu
	prec := 1/4.0 + float64(len(ys))/(1.5*1.5)
	sum := 0.0
	for _, y := range ys {
		sum += y
	}
	pm, pv := sum/(1.5*1.5)/prec, 1/prec
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 40000
	x := make([]float64, c.Model.XDim)
	names := c.Model.LatentNames()
	col := func(name string) int { return slices.Index(names, name) }
	var s1, s2, t1, t2, above float64
	for range n {
		mu := pm + math.Sqrt(pv)*rng.NormFloat64()
		c.Constrain([]float64{mu}, x)
		s1 += x[col("y_rep[2]")]
		s2 += x[col("y_rep[2]")] * x[col("y_rep[2]")]
		t1 += x[col("total")]
		t2 += x[col("total")] * x[col("total")]
		above += x[col("above")]
		require.InDelta(t, x[col("y_rep[1]")]+x[col("y_rep[2]")]+x[col("y_rep[3]")], x[col("total")], 1e-12)
	}
	mean, vr := s1/n, s2/n-(s1/n)*(s1/n)
	wantV := pv + 1.5*1.5
	require.InDelta(t, pm, mean, 4*math.Sqrt(wantV/n), "predictive mean")
	require.InDelta(t, wantV, vr, 4*wantV*math.Sqrt(2.0/n), "predictive variance")
	tm, tv := t1/n, t2/n-(t1/n)*(t1/n)
	wantT := 9*pv + 3*1.5*1.5
	require.InDelta(t, 3*pm, tm, 4*math.Sqrt(wantT/n), "mean of the sum")
	require.InDelta(t, wantT, tv, 4*wantT*math.Sqrt(2.0/n), "variance of the sum")
	require.InDelta(t, 0.5, above/n, 4*math.Sqrt(0.25/n), "P(y_rep[1] > mu)")
}

// TestDerivedErrors: what the derived block rejects, where.
func TestDerivedErrors(t *testing.T) {
	head := "latent { z: vector[3] }\nmodel { z ~ normal(0, 1) }\n"
	for _, c := range []struct{ body, want string }{
		{"derived { z ~ normal(0, 1) }", "m.msc:3:11: the derived block computes quantities on each posterior draw: it holds definitions, declarations, loops and if, not ~ or target +="},
		{"derived { for i in 1..3 { target += z[i] } }", "m.msc:3:27: the derived block computes quantities"},
		{"derived { z = 2 }", "m.msc:3:11: z is already declared as latent at 1:10; pick another name"},
		{"derived { w: real }", "m.msc:3:11: derived quantity w is declared but never assigned"},
		{"derived { w: int[3]\n w[1] = 1; w[2] = 2 }", "m.msc:3:11: element w[3] of local w is used before it is assigned"},
		{"derived { w: int[3]\n w[1] = z[1] }", "m.msc:4:9: w holds integers, and the value is real"},
		{"derived { w: int[3, 2]\n w[1, 2] = 1.5 }", "m.msc:4:12: w holds integers, and the value is real"},
	} {
		msg := buildErr(t, head+c.body, "")
		require.Contains(t, msg, c.want, c.body)
	}
}

// TestPerDrawIndex: an index known only per draw (an int local set under
// an if on a latent) reads the element it names, NaN when it is out of
// range, and its gradient is that element's (against finite differences).
func TestPerDrawIndex(t *testing.T) {
	c := compile(t, `latent { z: vector[3] }
model {
  z ~ normal(0, 1)
  k: int = 1
  if z[1] > 0 {
    k = 2
  }
  target += z[k + 1] * z[k + 1] * z[2]
}
derived {
  j: int = 1
  if z[1] > 0 {
    j = 3
  }
  w = z[j + 1]
}
`, "")
	for _, u := range [][]float64{{0.5, -0.3, 1.2}, {-0.5, 0.7, -1.1}} {
		k := 1
		if u[0] > 0 {
			k = 2
		}
		want := -0.5*(u[0]*u[0]+u[1]*u[1]+u[2]*u[2]) - 1.5*math.Log(2*math.Pi) + u[k]*u[k]*u[1]
		grad := make([]float64, 3)
		require.InDelta(t, want, c.GradLogJoint(u, grad), 1e-12)
		for i := range u {
			v := slices.Clone(u)
			v[i] += 1e-6
			hi := []float64{0}
			c.LogJoint(v, hi)
			v[i] -= 2e-6
			lo := []float64{0}
			c.LogJoint(v, lo)
			require.InDelta(t, (hi[0]-lo[0])/2e-6, grad[i], 1e-5, "d/dz[%d]", i+1)
		}
		x := make([]float64, c.Model.XDim)
		c.Constrain(u, x)
		w := x[slices.Index(c.Model.LatentNames(), "w")]
		if u[0] > 0 {
			require.True(t, math.IsNaN(w), "z[4] is out of range")
		} else {
			require.Equal(t, u[1], w)
		}
	}
}

// TestFunctionErrorsOnce: an error in a user function's body is reported
// once, at its place in the function, with the call that triggered it,
// however many calls inline the function and whatever follows from it.
func TestFunctionErrorsOnce(t *testing.T) {
	head := "latent { z: vector[3] }\nmodel {\n z ~ normal(0, 1)\n"
	for _, c := range []struct{ fn, calls, want string }{
		{"f(v: vector) -> real { d: real = v[4]\n return d }", " target += f(z)\n target += f(2 * z)\n for k in 1..3 { target += f(k * z) }\n",
			"m.msc:1:48: index 4 is out of range: v has 3 elements (indices start at 1); in the call f(z) at 6:12"},
		{"f(x: real) -> real { d: real = x + nope\n return d }", " target += f(z[1]) + f(z[2])\n",
			`m.msc:1:48: unknown name "nope"; in the call f(z[1]) at 6:12 (declare it in the data, param or latent block)`},
		{"g(v: vector) -> real { return v[4] }\n f(v: vector) -> real { s: real = g(v)\n return s }", " target += f(z)\n target += f(z)\n",
			"m.msc:1:45: index 4 is out of range: v has 3 elements (indices start at 1); in the call f(z) at 7:12"},
		{"f(v: vector, k: int) -> real { return v[k] }", " target += f(z, 2) + f(z, 4) + f(z, 5)\n",
			"m.msc:1:53: index 4 is out of range: v has 3 elements (indices start at 1); in the call f(z, 4) at 5:22"},
	} {
		src := "functions { " + c.fn + " }\n" + head + c.calls + "}\n"
		msg := buildErr(t, src, "")
		require.Equal(t, c.want, msg, src)
	}
}

// TestDerivedUsesLatents: a derived quantity of data and params is exact (the
// summaries report its value); one assigned from the latents, from a
// random draw, or under an if on the latents, is not.
func TestDerivedUsesLatents(t *testing.T) {
	c := compile(t, `param { a: real = 1.5 }
latent { z: vector[2] }
model { z ~ normal(a, 1) }
derived {
  two = 2 * 3
  pa = exp(a)
  twice = 2 * z[1]
  k: int = 1
  if z[1] > 0 {
    k = 2
  }
  n: int = 1
  for i in 1..2 {
    n = n + i
  }
  r = normal_rng(0, 1)
  m = n + 1
  s = m + k
}
`, "")
	names := c.Model.LatentNames()
	for name, want := range map[string]bool{"z[1]": true, "two": false, "twice": true, "k": true, "n": false, "r": true, "m": false, "s": true, "pa": false} {
		require.Equal(t, want, c.Model.DerivedUsesLatents(slices.Index(names, name)), name)
	}
}

// TestDerivedUnsetIsNaN: in derived { }, a scalar or an element set in one
// branch of an if on the latents only is NaN where the other is taken.
func TestDerivedUnsetIsNaN(t *testing.T) {
	c := compile(t, `latent { z: real }
model { z ~ normal(0, 1) }
derived {
  a: real
  v: vector[2]
  v[2] = 5
  if z > 0 {
    a = z
    v[1] = 2 * z
  }
}
`, "")
	names := c.Model.LatentNames()
	x := make([]float64, c.Model.XDim)
	c.Constrain([]float64{0.5}, x)
	require.Equal(t, []float64{0.5, 0.5, 1, 5}, []float64{x[0], x[slices.Index(names, "a")], x[slices.Index(names, "v[1]")], x[slices.Index(names, "v[2]")]})
	c.Constrain([]float64{-0.5}, x)
	require.True(t, math.IsNaN(x[slices.Index(names, "a")]))
	require.True(t, math.IsNaN(x[slices.Index(names, "v[1]")]))
	require.Equal(t, 5.0, x[slices.Index(names, "v[2]")])
	// in the model block it is an error to use it
	msg := buildErr(t, "latent { z: real }\nmodel {\n z ~ normal(0, 1)\n a: real\n if z > 0 { a = z }\n target += a\n}\n", "")
	require.Contains(t, msg, "used before it is defined")
}
