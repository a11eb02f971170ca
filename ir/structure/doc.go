// Package structure is the third stage of the IR: what a compiled model's
// structure says about its posterior. RecogniseGLM recognises a
// generalised linear model (the linear map read off the compiled graph,
// then verified at random points), for EP and cross-validation's metric.
// FactsOf finds the model's facts for the remedies the warnings name: the
// centred hierarchies and the exchangeable components (found by swapping
// elements in the log joint).
package structure
