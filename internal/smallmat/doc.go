// Package smallmat is the algebra of small dense matrices that the
// state-space proposals of infer/msc use at every particle and step: K x K,
// row-major, K a state's dimension (a handful), written out without
// allocation or calls into a general library. Lower-triangular matrices
// keep zeros above the diagonal.
package smallmat
