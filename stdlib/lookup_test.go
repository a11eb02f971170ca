package stdlib

import "strings"

// lookupNary finds a scalar function of several arguments by its name in
// the language: an op of NaryFuncs, or a distribution's NAME_lpdf
// (NAME_lpmf), NAME_lcdf, NAME_lccdf or NAME_cdf.
func lookupNary(name string) (*NaryFunc, bool) {
	if f := FindNary(name); f != nil {
		return f, true
	}
	if f, ok := LogDensityFunc(name); ok {
		return f, true
	}
	if fam, ok := families[strings.TrimSuffix(name, "_lcdf")]; ok && fam.LogCDF != nil {
		return fam.LogCDF, true
	}
	if fam, ok := families[strings.TrimSuffix(name, "_lccdf")]; ok && fam.LogCCDF != nil {
		return fam.LogCCDF, true
	}
	if fam, ok := families[strings.TrimSuffix(name, "_cdf")]; ok && fam.CDF != nil {
		return fam.CDF, true
	}
	return nil, false
}

// lookupElem finds an elementwise op of ElemFuncs by name.
func lookupElem(name string) (*ElemFunc, bool) {
	e := FindElem(name)
	return e, e != nil
}
