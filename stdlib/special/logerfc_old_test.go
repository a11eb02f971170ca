package special

import "math"

// Coefficients of the erfc approximations on [1.25, 1/0.35] and
// [1/0.35, 28] from FreeBSD's s_erf.c (as used by Go's math.Erfc; BSD
// licence, Copyright (C) 1993 by Sun Microsystems, Inc.).
const (
	ra0 = -9.86494403484714822705e-03
	ra1 = -6.93858572707181764372e-01
	ra2 = -1.05586262253232909814e+01
	ra3 = -6.23753324503260060396e+01
	ra4 = -1.62396669462573470355e+02
	ra5 = -1.84605092906711035994e+02
	ra6 = -8.12874355063065934246e+01
	ra7 = -9.81432934416914548592e+00
	sa1 = 1.96512716674392571292e+01
	sa2 = 1.37657754143519042600e+02
	sa3 = 4.34565877475229228821e+02
	sa4 = 6.45387271733267880336e+02
	sa5 = 4.29008140027567833386e+02
	sa6 = 1.08635005541779435134e+02
	sa7 = 6.57024977031928170135e+00
	sa8 = -6.04244152148580987438e-02
	rb0 = -9.86494292470009928597e-03
	rb1 = -7.99283237680523006574e-01
	rb2 = -1.77579549177547519889e+01
	rb3 = -1.60636384855821916062e+02
	rb4 = -6.37566443368389627722e+02
	rb5 = -1.02509513161107724954e+03
	rb6 = -4.83519191608651397019e+02
	sb1 = 3.03380607434824582924e+01
	sb2 = 3.25792512996573918826e+02
	sb3 = 1.53672958608443695994e+03
	sb4 = 3.19985821950859553908e+03
	sb5 = 2.55305040643316442583e+03
	sb6 = 4.74528541206955367215e+02
	sb7 = -2.24409524465858183362e+01
)

// erfcTail is erfc(t) for 1.25 <= t < 28 with a single exp.
func erfcTail(t float64) float64 {
	return math.Exp(logErfcTailT(t)) / t
}

// logErfcTailT is log(t erfc(t)).
func logErfcTailT(t float64) float64 {
	z := math.Float64frombits(math.Float64bits(t) & 0xffffffff00000000)
	return -z*z - 0.5625 + (z-t)*(z+t) + erfcRS(t)
}

// erfcRS is R/S of the rational approximation for 1.25 <= t < 28:
// t erfc(t) = exp(-t^2 - 0.5625 + R/S).
func erfcRS(t float64) float64 {
	s := 1 / (t * t)
	if t < 1/0.35 {
		R := ra0 + s*(ra1+s*(ra2+s*(ra3+s*(ra4+s*(ra5+s*(ra6+s*ra7))))))
		S := 1 + s*(sa1+s*(sa2+s*(sa3+s*(sa4+s*(sa5+s*(sa6+s*(sa7+s*sa8)))))))
		return R / S
	}
	R := rb0 + s*(rb1+s*(rb2+s*(rb3+s*(rb4+s*(rb5+s*rb6)))))
	S := 1 + s*(sb1+s*(sb2+s*(sb3+s*(sb4+s*(sb5+s*(sb6+s*sb7))))))
	return R / S
}

// Coefficients of erfc on |t| < 0.84375 and 0.84375 <= |t| < 1.25, from
// the same source.
const (
	erx = 8.45062911510467529297e-01
	pp0 = 1.28379167095512558561e-01
	pp1 = -3.25042107247001499370e-01
	pp2 = -2.84817495755985104766e-02
	pp3 = -5.77027029648944159157e-03
	pp4 = -2.37630166566501626084e-05
	qq1 = 3.97917223959155352819e-01
	qq2 = 6.50222499887672944485e-02
	qq3 = 5.08130628187576562776e-03
	qq4 = 1.32494738004321644526e-04
	qq5 = -3.96022827877536812320e-06
	pa0 = -2.36211856075265944077e-03
	pa1 = 4.14856118683748331666e-01
	pa2 = -3.72207876035701323847e-01
	pa3 = 3.18346619901161753674e-01
	pa4 = -1.10894694282396677476e-01
	pa5 = 3.54783043256182359371e-02
	pa6 = -2.16637559486879084300e-03
	qa1 = 1.06420880400844228286e-01
	qa2 = 5.40397917702171048937e-01
	qa3 = 7.18286544141962662868e-02
	qa4 = 1.26171219808761642112e-01
	qa5 = 1.36370839120290507362e-02
	qa6 = 1.19844998467991074170e-02
)

// erfcMid is erfc(t) for |t| < 1.25, the same arithmetic as math.Erfc
// there (no exp) without its special cases.
func erfcMid(t float64) float64 {
	a := math.Abs(t)
	var temp float64
	if a < 0.84375 {
		z := a * a
		r := pp0 + z*(pp1+z*(pp2+z*(pp3+z*pp4)))
		s := 1 + z*(qq1+z*(qq2+z*(qq3+z*(qq4+z*qq5))))
		y := r / s
		if a < 0.25 {
			temp = a + a*y
		} else {
			temp = 0.5 + (a*y + (a - 0.5))
		}
		if t < 0 {
			return 1 + temp
		}
		return 1 - temp
	}
	s := a - 1
	P := pa0 + s*(pa1+s*(pa2+s*(pa3+s*(pa4+s*(pa5+s*pa6)))))
	Q := 1 + s*(qa1+s*(qa2+s*(qa3+s*(qa4+s*(qa5+s*qa6)))))
	if t < 0 {
		return 1 + erx + P/Q
	}
	return 1 - erx - P/Q
}
