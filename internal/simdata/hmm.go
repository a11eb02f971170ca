package simdata

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// HMMDrive is a data set of the shape of posteriordb's
// bball_drive_event_1-hmm_drive_1 (a two-state HMM with two normal
// emission series, u with sd Tau and v with sd Rho) with T observations,
// in CmdStan's JSON format (the field names of hmm_drive's data.json).
type HMMDrive struct {
	K     int         `json:"K"`
	N     int         `json:"N"`
	U     []float64   `json:"u"`
	V     []float64   `json:"v"`
	Alpha [][]float64 `json:"alpha"`
	Tau   float64     `json:"tau"`
	Rho   float64     `json:"rho"`
	// the state path that generated them (not read by the models)
	Z []int `json:"z_true"`
}

// The parameters HMMDriveData simulates from: about hmm_drive's posterior
// means (posteriordb's reference), so that the simulated series looks
// like the real one: transition rows (0.97, 0.03) and (0.01, 0.99), state
// means phi = (-2.34, -0.74) for u and lambda = (2.43, 3.54) for v, sds
// 0.1, the chain started in state 1.
var (
	HMMDriveTheta  = [2][2]float64{{0.97, 0.03}, {0.01, 0.99}}
	HMMDrivePhi    = [2]float64{-2.34, -0.74}
	HMMDriveLambda = [2]float64{2.43, 3.54}
)

// HMMDriveData simulates T observations (seed 11).
func HMMDriveData(t int) *HMMDrive {
	rng := rand.New(rand.NewPCG(11, uint64(t)))
	d := &HMMDrive{K: 2, N: t, Alpha: [][]float64{{4, 2}, {2, 4}}, Tau: 0.1, Rho: 0.1,
		U: make([]float64, t), V: make([]float64, t), Z: make([]int, t)}
	z := 0
	for n := 0; n < t; n++ {
		if n > 0 && rng.Float64() >= HMMDriveTheta[z][z] {
			z = 1 - z
		}
		d.Z[n] = z + 1
		d.U[n] = HMMDrivePhi[z] + d.Tau*rng.NormFloat64()
		d.V[n] = HMMDriveLambda[z] + d.Rho*rng.NormFloat64()
	}
	return d
}

// HMMDriveJSON writes HMMDriveData(t) into dir as hmm_drive_T.json and
// returns its path.
func HMMDriveJSON(dir string, t int) (string, error) {
	b, err := json.Marshal(HMMDriveData(t))
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "hmm_drive_"+itoa(t)+".json")
	return path, os.WriteFile(path, b, 0o644)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
