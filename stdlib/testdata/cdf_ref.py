#!/usr/bin/env python3
"""Reference values of every NAME_lcdf and NAME_lccdf of the vocabulary, for
TestCDFTails (stdlib/cdf_tails_test.go), on a grid that covers the bulk and
both tails (|y| from 1e-300 to 1e300 in decades where the family's support
allows it).

Made once with Debian's python3-mpmath:

    apt-get install -y python3-mpmath
    /usr/bin/python3 stdlib/testdata/cdf_ref.py > stdlib/testdata/cdf_tails.csv

Method: mpmath at 1200 bits (so that 1 - x is exact for every double x),
each family's CDF P and complement Q computed from its own lower-tail
expression (never as 1 - the other), then
    lcdf  = log(P)  if P <= 1/2 else log1p(-Q)
    lccdf = log(Q)  if Q <= 1/2 else log1p(-P)
skew_normal's tails beyond |z| = 5 are integrated in logs (skew_log_tail).
Values beyond the doubles' range are written as -inf (the Go functions then
must return -Inf); the arguments are written as Python's repr of the double
the Go test passes, so the reference is that of the exact double.

Columns: name,kind,value,arg0,arg1,... (kind is lcdf or lccdf; arg0 is y).
"""
import sys
import mpmath as mp

mp.mp.prec = 1200

SQRT2 = mp.sqrt(2)


def erfc(x):
    """erfc(x), with the asymptotic series for large x (mpmath's own
    overflows a float in its series check for x near 1e300)."""
    if x < 1e4:
        return mp.erfc(x)
    # erfc(x) = exp(-x^2)/(x sqrt(pi)) sum_n (-1)^n (2n-1)!!/(2x^2)^n
    s, t, n, eps = mp.mpf(1), mp.mpf(1), 1, mp.mpf(2) ** (-mp.mp.prec - 10)
    while abs(t) > eps:
        t *= -(2 * n - 1) / (2 * x * x)
        s += t
        n += 1
    return mp.exp(-x * x) / (x * mp.sqrt(mp.pi)) * s


def ncdf(z):  # Phi(z), directly in either tail
    return erfc(-z / SQRT2) / 2


def reg_lower_gamma(a, x):  # P(a, x)
    return mp.gammainc(a, 0, x, regularized=True)


def reg_upper_gamma(a, x):  # Q(a, x)
    return mp.gammainc(a, x, mp.inf, regularized=True)


def ibeta(a, b, x):  # I_x(a, b), x in [0, 1]
    if x == 0:
        return mp.mpf(0)
    if x == 1:
        return mp.mpf(1)
    return mp.betainc(a, b, 0, x, regularized=True)


def pq_gamma(a, x):
    return reg_lower_gamma(a, x), reg_upper_gamma(a, x)


def pq_beta(a, b, x):
    x = mp.mpf(x)
    return ibeta(a, b, x), ibeta(b, a, 1 - x)


def loc_scale(f):
    def g(y, mu, s):
        return f((mp.mpf(y) - mp.mpf(mu)) / mp.mpf(s))
    return g


def normal_pq(z):
    return ncdf(z), ncdf(-z)


def logistic_pq(z):
    return 1 / (1 + mp.exp(-z)), 1 / (1 + mp.exp(z))


class Logs(tuple):
    """(log P, log Q) given directly, where P or Q is beyond even mpmath."""


def gumbel_pq(z):
    u = mp.exp(-z)
    if u > 1e10:  # exp(-u) is far below the doubles (and mpmath would hang)
        return Logs((-u, mp.mpf(0)))
    return mp.exp(-u), -mp.expm1(-u)


def cauchy_pq(z):
    return mp.atan2(1, -z) / mp.pi, mp.atan2(1, z) / mp.pi


def dexp_pq(z):
    if z < 0:
        e = mp.exp(z) / 2
        return e, 1 - e
    e = mp.exp(-z) / 2
    return 1 - e, e


def student_pq(y, nu, mu, s):
    nu = mp.mpf(nu)
    z = (mp.mpf(y) - mp.mpf(mu)) / mp.mpf(s)
    x = nu / (nu + z * z)
    tail = ibeta(nu / 2, mp.mpf(1) / 2, x) / 2  # F(-|z|)
    other = ibeta(mp.mpf(1) / 2, nu / 2, z * z / (nu + z * z)) / 2 + mp.mpf(1) / 2
    return (tail, other) if z < 0 else (other, tail)


def owen_t(h, a):
    return mp.quad(lambda x: mp.exp(-h * h * (1 + x * x) / 2) / (1 + x * x), [0, a]) / (2 * mp.pi)


def skew_log_tail(z, al):
    """log F(z; alpha) for z < 0, far in the tail: the density integrated
    from z down, on v = exp(-s) in [0, 1] with t = z - s/c, c = |z| q the
    integrand's decay rate (q = 1 + alpha^2 when Phi(alpha t) decays too),
    and exp(-q z^2 / 2) taken out in logs."""
    z, al = mp.mpf(z), mp.mpf(al)
    with mp.workprec(120 + int(7 * mp.log10(abs(z)))):
        q = 1 + al * al if al > 0 else mp.mpf(1)
        c = abs(z) * q
        base = -q * z * z / 2

        def g(v):
            if v == 0:
                return mp.mpf(0)
            t = z + mp.log(v) / c
            return mp.exp(mp.log(2 * mp.npdf(t) * ncdf(al * t)) - base) / v
        i = mp.quad(g, [0, mp.mpf(2) ** -40, mp.mpf(2) ** -20, mp.mpf(2) ** -10, mp.mpf(1) / 32, 1])
        return +(base + mp.log(i / c))


def skew_normal_pq(y, xi, om, al):
    # |z| >= 5: the smaller side by skew_log_tail (1 - F(z; alpha) =
    # F(-z; -alpha)), the other as log1p(-exp(it)). Otherwise
    # F(z) = Phi(z) - 2 T(z, alpha), Owen's T by quadrature on its finite
    # interval, at a precision that absorbs the cancellation (up to
    # exp(-(1 + alpha^2) z^2 / 2) below Phi(z)).
    z = (mp.mpf(y) - mp.mpf(xi)) / mp.mpf(om)
    al = mp.mpf(al)
    if abs(z) >= 5:
        small = skew_log_tail(-abs(z), al if z < 0 else -al)
        other = mp.log1p(-mp.exp(small))
        return Logs((small, other) if z < 0 else (other, small))
    with mp.workprec(1200 + int(1.45 * (1 + al * al) * z * z / 2)):
        p = ncdf(z) - 2 * owen_t(z, al)
        q = ncdf(-z) - 2 * owen_t(-z, -al)
    return +p, +q


def weibull_pq(y, al, s):
    t = (mp.mpf(y) / mp.mpf(s)) ** mp.mpf(al)
    return -mp.expm1(-t), mp.exp(-t)


def frechet_pq(y, al, s):
    t = (mp.mpf(y) / mp.mpf(s)) ** (-mp.mpf(al))
    return mp.exp(-t), -mp.expm1(-t)


def rayleigh_pq(y, s):
    t = mp.mpf(y) ** 2 / (2 * mp.mpf(s) ** 2)
    return -mp.expm1(-t), mp.exp(-t)


def pareto_pq(y, ymin, al):
    q = (mp.mpf(ymin) / mp.mpf(y)) ** mp.mpf(al)
    return -mp.expm1(mp.log(q)), q


def exponential_pq(y, b):
    t = mp.mpf(y) * mp.mpf(b)
    return -mp.expm1(-t), mp.exp(-t)


def lognormal_pq(y, mu, s):
    return normal_pq((mp.log(mp.mpf(y)) - mp.mpf(mu)) / mp.mpf(s))


def half_normal_pq(y, s):
    z = mp.mpf(y) / mp.mpf(s)
    return 1 - erfc(z / SQRT2), erfc(z / SQRT2)


def uniform_pq(y, a, b):
    y, a, b = mp.mpf(y), mp.mpf(a), mp.mpf(b)
    return (y - a) / (b - a), (b - y) / (b - a)


def gamma_pq(y, a, b):
    return pq_gamma(mp.mpf(a), mp.mpf(b) * mp.mpf(y))


def inv_gamma_pq(y, a, b):
    p, q = pq_gamma(mp.mpf(a), mp.mpf(b) / mp.mpf(y))
    return q, p


def chi_square_pq(y, nu):
    return pq_gamma(mp.mpf(nu) / 2, mp.mpf(y) / 2)


def inv_chi_square_pq(y, nu):
    p, q = pq_gamma(mp.mpf(nu) / 2, 1 / (2 * mp.mpf(y)))
    return q, p


def scaled_inv_chi_square_pq(y, nu, s):
    nu, s = mp.mpf(nu), mp.mpf(s)
    p, q = pq_gamma(nu / 2, nu * s * s / (2 * mp.mpf(y)))
    return q, p


def beta_pq(y, a, b):
    return pq_beta(mp.mpf(a), mp.mpf(b), y)


def bernoulli_pq(n, th):
    th = mp.mpf(th)
    return 1 - th, th


def binomial_pq(n, N, th):
    n, N, th = int(n), int(N), mp.mpf(th)
    # P(Y <= n) = I_{1-th}(N - n, n + 1), Q = I_th(n + 1, N - n)
    return ibeta(N - n, n + 1, 1 - th), ibeta(n + 1, N - n, th)


def poisson_pq(n, lam):
    p, q = pq_gamma(int(n) + 1, mp.mpf(lam))
    return q, p


def neg_binomial_2_pq(n, mu, phi):
    n, mu, phi = int(n), mp.mpf(mu), mp.mpf(phi)
    p = phi / (mu + phi)
    return ibeta(phi, n + 1, p), ibeta(n + 1, phi, mu / (mu + phi))


def beta_binomial_pq(n, N, a, b):
    n, N, a, b = int(n), int(N), mp.mpf(a), mp.mpf(b)

    def pmf(k):
        return mp.binomial(N, k) * mp.beta(k + a, N - k + b) / mp.beta(a, b)
    return mp.fsum(pmf(k) for k in range(0, n + 1)), mp.fsum(pmf(k) for k in range(n + 1, N + 1))


# the grids: |z| or y in decades over the doubles' range, denser in the bulk
DEC = [1e-300, 1e-200, 1e-100, 1e-50, 1e-20, 1e-10, 1e-5, 1e-3, 0.01, 0.1, 0.3, 0.5, 0.9, 1.0,
       1.5, 2.0, 3.0, 5.0, 8.0, 10.0, 20.0, 30.0, 38.0, 40.0, 50.0, 100.0, 300.0, 1e3, 1e4, 1e5,
       1e6, 1e8, 1e10, 1e15, 1e16, 1e20, 1e30, 1e50, 1e100, 1e150, 1e200, 1e300]
REAL = sorted([-v for v in DEC] + [0.0] + DEC)
POS = DEC

FAMILIES = [
    # name, pq function, parameter sets, y grid
    ("std_normal", lambda y: normal_pq(mp.mpf(y)), [()], REAL),
    ("normal", loc_scale(normal_pq), [(0.0, 1.0), (1.5, 2.5)], REAL),
    ("logistic", loc_scale(logistic_pq), [(0.0, 1.0), (1.5, 2.5)], REAL),
    ("gumbel", loc_scale(gumbel_pq), [(0.0, 1.0), (1.5, 2.5)], REAL),
    ("cauchy", loc_scale(cauchy_pq), [(0.0, 1.0), (1.5, 2.5)], REAL),
    ("double_exponential", loc_scale(dexp_pq), [(0.0, 1.0), (1.5, 2.5)], REAL),
    ("student_t", student_pq, [(1.0, 0.0, 1.0), (3.5, 1.5, 2.5), (30.0, 0.0, 1.0)], REAL),
    ("skew_normal", skew_normal_pq, [(0.0, 1.0, 0.0), (0.5, 2.0, 3.0), (0.0, 1.0, -1.5)],
     [v for v in REAL if abs(v) <= 1e20]),
    ("exponential", exponential_pq, [(1.0,), (2.5,)], POS),
    ("weibull", weibull_pq, [(1.5, 2.0), (0.7, 1.0)], POS),
    ("frechet", frechet_pq, [(1.5, 2.0), (0.7, 1.0)], POS),
    ("rayleigh", rayleigh_pq, [(1.0,), (2.5,)], POS),
    ("pareto", pareto_pq, [(1.0, 2.0), (1e-3, 0.7)], POS),
    ("lognormal", lognormal_pq, [(0.0, 1.0), (1.5, 2.5)], POS),
    ("half_normal", half_normal_pq, [(1.0,), (2.5,)], POS),
    ("uniform", uniform_pq, [(0.0, 1.0), (-3.0, 1e300)],
     [v for v in REAL if v > -3 and v < 1e300]),
    ("gamma", gamma_pq, [(1.0, 1.0), (0.5, 2.0), (30.0, 0.5), (1e-3, 1.0)], POS),
    ("inv_gamma", inv_gamma_pq, [(1.0, 1.0), (0.5, 2.0), (30.0, 0.5)], POS),
    ("chi_square", chi_square_pq, [(1.0,), (7.0,)], POS),
    ("inv_chi_square", inv_chi_square_pq, [(1.0,), (7.0,)], POS),
    ("scaled_inv_chi_square", scaled_inv_chi_square_pq, [(1.0, 1.0), (7.0, 0.5)], POS),
    ("beta", beta_pq, [(1.0, 1.0), (0.5, 0.5), (2.0, 5.0), (30.0, 0.3)],
     [v for v in POS if v < 1] + [1 - v for v in [1e-16, 1e-10, 1e-5, 1e-3, 0.01, 0.1]]),
    ("bernoulli", bernoulli_pq, [(0.3,), (1e-300,)], [0.0]),
    ("binomial", binomial_pq, [(10.0, 0.3), (1000.0, 1e-3), (100.0, 0.999)],
     [0.0, 1.0, 2.0, 3.0, 5.0, 9.0, 30.0, 50.0, 99.0, 300.0, 999.0]),
    ("poisson", poisson_pq, [(1.0,), (1e-3,), (50.0,), (1e5,)],
     [0.0, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0, 300.0, 1e3, 1e4, 9e4, 1e5, 1.1e5, 1e6]),
    ("neg_binomial_2", neg_binomial_2_pq, [(1.0, 1.0), (50.0, 3.0), (2.0, 1e3)],
     [0.0, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0, 300.0, 1e3, 1e4, 1e5]),
    ("beta_binomial", beta_binomial_pq, [(10.0, 1.0, 1.0), (200.0, 0.5, 3.0)],
     [0.0, 1.0, 2.0, 5.0, 9.0, 30.0, 100.0, 150.0, 199.0]),
]


def logs(p, q):
    lp = mp.log(p) if p <= 0.5 else mp.log1p(-q)
    lq = mp.log(q) if q <= 0.5 else mp.log1p(-p)
    return lp, lq


def fmt(v):
    f = float(v)
    if f == 0 and v != 0:  # below the doubles: the reference is its sign
        return "-0.0" if v < 0 else "0.0"
    return repr(f)


def main():
    only = set(sys.argv[1:])
    w = sys.stdout.write
    w("# made by: /usr/bin/python3 stdlib/testdata/cdf_ref.py > stdlib/testdata/cdf_tails.csv (mpmath %s)\n" % mp.__version__)
    w("name,kind,value,args\n")
    for name, pq, params, ys in FAMILIES:
        if only and name not in only:
            continue
        for ps in params:
            for y in ys:
                if name == "binomial" and y > ps[0]:
                    continue
                if name == "beta_binomial" and y > ps[0]:
                    continue
                if name == "pareto" and y <= ps[0]:
                    continue
                pq_ = pq(y, *ps)
                if isinstance(pq_, Logs):
                    lp, lq = pq_
                else:
                    p, q = pq_
                    if p <= 0 or q <= 0:
                        continue  # outside the support or at its edge: TestLogCDFs covers it
                    lp, lq = logs(p, q)
                args = ",".join(repr(float(v)) for v in (y,) + tuple(ps))
                w("%s,lcdf,%s,%s\n" % (name, fmt(lp), args))
                w("%s,lccdf,%s,%s\n" % (name, fmt(lq), args))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
