// Package kalman computes exact answers for linear-Gaussian state-space
// models, the references against which the engine's state-space inference
// (particle Gibbs within MSC) is tested. Nothing here uses the engine.
//
// The model is time-invariant, with K-dimensional states and
// D-dimensional observations:
//
//	x_1 ~ N(M0, P0)
//	x_t = F x_{t-1} + w_t,  w_t ~ N(0, Q)
//	y_t = H x_t + v_t,      v_t ~ N(0, R)
//
// Filter runs the Kalman filter (the log-likelihood log p(y_1:T) and the
// predicted and filtered moments); Smooth adds the Rauch-Tung-Striebel
// smoother's moments of x_t given all of y. A NaN in y_t marks that entry
// as missing: the update uses the observed entries only (no update when
// all are missing). One-dimensional models (K = D = 1) take a scalar path
// that allocates nothing per step; the tests check it against the matrix
// path and both against dense Gaussian algebra (the joint of x_1:T and
// y_1:T is Gaussian, so log p(y), E[x | y] and Cov[x | y] follow from its
// mean and covariance).
//
// Grid gives the exact posterior of one or two static parameters theta:
// log prior + Kalman log-likelihood evaluated at the midpoints of a regular
// grid (on a transformed scale u with theta = g(u) and the log-Jacobian
// added; the cells in parallel, each independent of the schedule),
// normalised. Grid.Posterior returns each parameter's posterior mean, sd
// and quantiles, the log evidence log p(y), and (unless NoStates) the
// posterior mean and sd of every state x_t averaged over theta
// (E[x_t | y] = sum_cells w E[x_t | y, theta] and Var[x_t | y] =
// sum_cells w (Var[x_t | y, theta] + E[x_t | y, theta]^2) - E[x_t | y]^2,
// the cells of weight below 1e-16 of the largest left out, SkippedMass
// bounding their mass). The midpoint rule on a smooth density that is
// negligible at the grid's edges (ParamSummary's EdgeLo and EdgeHi say how
// negligible) has an error of order h^2 in the spacing h; the tests
// compare the cases' grids with grids half as fine (and, in the long tier,
// twice as fine) and, for case (c), with a log-scale grid, and the grid
// itself with closed forms (conjugate normal means, an inverse-gamma
// variance).
//
// The ready-made cases AR1Noise, LocalLinearTrend, LocalLevel,
// LocalLevel1000 and VAR2 (cases (a) to (e); Cases returns the first four,
// whose grids take under a second) simulate a data set with a fixed seed
// and return it with its mscppl model text and the exact answer (the
// Kalman smoother's for LocalLinearTrend, whose statics are known; a
// 300 x 300 grid for the others); their files under testdata (model .msc,
// data .csv and the exact answer _exact.csv) are what the engine's tests
// read, and
// TestCaseFiles checks that they are what the functions produce (go test
// ./internal/kalman -run TestCaseFiles -update rewrites them).
package kalman
