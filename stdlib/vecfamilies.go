package stdlib

// The multivariate distributions, in the registry beside the scalar ones:
// their shapes (Family.Vec) and log density ops (vecdist.go, matops.go,
// linalg.go, ordered.go); and normal_id_glm, which the compiler reads as a
// normal of the linear predictor.

func init() {
	register(&Family{
		Name: "multi_normal_cholesky", Doc: "the multivariate normal of mean mu and covariance L L'",
		Params: []ParamSpec{{"mu", RealLine}, {"L", RealLine}},
		Vec: &VecDensity{Value: ShapeVector, Params: []Shape{ShapeVectorOrScalar, ShapeSquare},
			Want: "y is a vector[n], mu a vector[n] (or a scalar) and L a matrix[n, n]",
			New:  NewMultiNormalCholeskyLpdf},
	})
	register(&Family{
		Name: "multi_normal", Doc: "the multivariate normal of mean mu and covariance Sigma",
		Params: []ParamSpec{{"mu", RealLine}, {"Sigma", RealLine}},
		Vec: &VecDensity{Value: ShapeVector, Params: []Shape{ShapeVectorOrScalar, ShapeSquare},
			Want: "y is a vector[n], mu a vector[n] (or a scalar) and Sigma a matrix[n, n]",
			New:  NewMultiNormalLpdf},
	})
	register(&Family{
		Name: "dirichlet", Doc: "the Dirichlet distribution on the simplex",
		Params: []ParamSpec{{"alpha", Positive}},
		Vec: &VecDensity{Value: ShapeVector, Params: []Shape{ShapeVectorOrScalar},
			Want: "theta is a vector[K] (a simplex) and alpha a vector[K] or a scalar",
			New:  NewDirichletLpdf},
	})
	register(&Family{
		Name: "lkj_corr_cholesky", Doc: "the LKJ distribution of the Cholesky factor of a correlation matrix",
		Params: []ParamSpec{{"eta", Positive}},
		Vec: &VecDensity{Value: ShapeSquare, Params: []Shape{ShapeScalar},
			Want: "L is a cholesky_factor_corr[K] and eta a scalar",
			New:  NewLKJCorrCholeskyLpdf},
	})
	register(&Family{
		Name: "categorical", Doc: "category y in 1..K with probabilities theta (a simplex)", Discrete: true,
		Params: []ParamSpec{{"theta", Unit}},
		Vec: &VecDensity{Value: ShapeInt, Params: []Shape{ShapeVector},
			Want: "y is an int and theta a vector[K] (a simplex)",
			New:  NewCategoricalLpmf},
	})
	register(&Family{
		Name: "ordered_logistic", Doc: "ordinal y in 1..K with linear predictor eta and increasing cutpoints c", Discrete: true,
		Params: []ParamSpec{{"eta", RealLine}, {"c", RealLine}},
		Vec: &VecDensity{Value: ShapeInt, Params: []Shape{ShapeScalar, ShapeVector},
			Want: "y is an int, eta a scalar and c a vector[K - 1] of increasing cutpoints (ordered[K - 1])",
			New:  NewOrderedLogisticLpmf},
	})
	register(&Family{
		Name: "categorical_logit", Doc: "categorical(softmax(beta))", Discrete: true,
		Params: []ParamSpec{{"beta", RealLine}},
		Vec: &VecDensity{Value: ShapeInt, Params: []Shape{ShapeVector},
			Want: "y is an int and beta a vector[K]",
			New:  NewCategoricalLogitLpmf},
	})
	register(&Family{
		Name: "normal_id_glm", Doc: "normal(alpha + X * beta, sigma), a linear regression on the columns of X",
		Params: []ParamSpec{{"X", RealLine}, {"alpha", RealLine}, {"beta", RealLine}, {"sigma", Positive}},
		GLMOf:  "normal",
	})
}
