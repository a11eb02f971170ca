// Command mscppl is the command-line front end of the mscppl probabilistic
// programming language:
//
//	mscppl check MODEL.msc [DATA.csv]   parse, resolve, bind data, print the layout
//	mscppl run MODEL.msc [DATA.csv]     fit q by Markovian Score Climbing (or a baseline)
//	mscppl version
//
// User errors (bad models, bad data, bad flags) print a positioned message
// with the source line and a caret, and exit with status 1.
package main
