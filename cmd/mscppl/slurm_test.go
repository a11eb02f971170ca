package main

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mscppl/mscppl/internal/testtier"
	"github.com/stretchr/testify/require"
)

// slurmEnv is the variable that lets TestSlurmArray install Debian's
// slurm-wlm and munge with apt-get (as root) when they are missing.
const slurmEnv = "MSCPPL_SLURM"

// slurmTools are the programs TestSlurmArray runs.
var slurmTools = []string{"munged", "slurmctld", "slurmd", "sbatch", "sinfo"}

func missingTools() []string {
	var out []string
	for _, p := range slurmTools {
		if _, err := exec.LookPath(p); err != nil {
			out = append(out, p)
		}
	}
	return out
}

// slurmReady installs slurm-wlm and munge when they are missing and
// allowed, or says why the test cannot run.
func slurmReady(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		return "it runs slurmd, which needs root"
	}
	missing := missingTools()
	if len(missing) == 0 {
		return ""
	}
	if os.Getenv(slurmEnv) != "1" {
		return fmt.Sprintf("%s not installed; set %s=1 to let the test install Debian's slurm-wlm and munge with apt-get", strings.Join(missing, ", "), slurmEnv)
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return fmt.Sprintf("%s not installed and there is no apt-get to install slurm-wlm and munge", strings.Join(missing, ", "))
	}
	for _, args := range [][]string{{"update"}, {"install", "-y", "slurm-wlm", "munge"}} {
		cmd := exec.Command("apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Sprintf("apt-get %s failed: %v\n%s", strings.Join(args, " "), err, lastLines(out, 10))
		}
	}
	if missing := missingTools(); len(missing) > 0 {
		return fmt.Sprintf("%s still missing after installing slurm-wlm and munge", strings.Join(missing, ", "))
	}
	return ""
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// freePort is a TCP port of localhost free at the time of the call.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// daemon starts a program in the foreground of its own, stopped (by its
// process, with SIGTERM then SIGKILL) when the test ends.
func daemon(t *testing.T, env []string, log string, name string, args ...string) {
	t.Helper()
	f, err := os.Create(log)
	require.NoError(t, err)
	cmd := exec.Command(name, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, f, f
	require.NoError(t, cmd.Start(), name)
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		f.Close()
	})
}

// TestSlurmArray: a one-node Slurm on localhost (munged, slurmctld and
// slurmd with a configuration of their own in a temporary folder) runs the
// 4 shards of an sbc as a job array submitted with sbatch --wait, each
// with --shard auto; merged, they are the set one process writes, byte for
// byte apart from timings.
func TestSlurmArray(t *testing.T) {
	testtier.Skip(t)
	if why := slurmReady(t); why != "" {
		t.Skip("TestSlurmArray skipped: " + why)
	}
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o755))
	bin := filepath.Join(dir, "mscppl")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	host, err := os.Hostname()
	require.NoError(t, err)
	host, _, _ = strings.Cut(host, ".")

	// munge, with a key and a socket of its own
	key := make([]byte, 1024)
	_, err = rand.Read(key)
	require.NoError(t, err)
	keyFile := filepath.Join(dir, "munge.key")
	require.NoError(t, os.WriteFile(keyFile, key, 0o400))
	sock := filepath.Join(dir, "munge.socket")
	env := os.Environ()
	daemon(t, env, filepath.Join(dir, "munged.out"), "munged", "--foreground", "--force", "--key-file", keyFile, "--socket", sock,
		"--pid-file", filepath.Join(dir, "munged.pid"), "--log-file", filepath.Join(dir, "munged.log"), "--seed-file", filepath.Join(dir, "munged.seed"))

	// the cluster: one node, this machine
	for _, d := range []string{"state", "spool"} {
		require.NoError(t, os.Mkdir(filepath.Join(dir, d), 0o755))
	}
	conf := filepath.Join(dir, "slurm.conf")
	require.NoError(t, os.WriteFile(conf, []byte(fmt.Sprintf(`ClusterName=mscppltest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=%[3]d
SlurmdPort=%[4]d
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=%[2]s/munge.socket
StateSaveLocation=%[2]s/state
SlurmdSpoolDir=%[2]s/spool
SlurmctldPidFile=%[2]s/slurmctld.pid
SlurmdPidFile=%[2]s/slurmd.pid
SlurmctldLogFile=%[2]s/slurmctld.log
SlurmdLogFile=%[2]s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=%[5]d State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
`, host, dir, freePort(t), freePort(t), runtime.NumCPU())), 0o644))
	env = append(env, "SLURM_CONF="+conf)
	daemon(t, env, filepath.Join(dir, "slurmctld.out"), "slurmctld", "-D", "-i", "-f", conf)
	daemon(t, env, filepath.Join(dir, "slurmd.out"), "slurmd", "-D", "-f", conf, "-N", host)
	logs := func() string {
		var b bytes.Buffer
		for _, f := range []string{"munged.out", "munged.log", "slurmctld.out", "slurmctld.log", "slurmd.out", "slurmd.log"} {
			data, _ := os.ReadFile(filepath.Join(dir, f))
			fmt.Fprintf(&b, "== %s\n%s\n", f, lastLines(data, 15))
		}
		return b.String()
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		cmd := exec.Command("sinfo", "-h", "-N", "-o", "%t")
		cmd.Env = env
		state, _ := cmd.Output()
		if s := strings.TrimSpace(string(state)); s == "idle" || s == "mix" {
			break
		}
		require.True(t, time.Now().Before(deadline), "the node is not up: %q\n%s", state, logs())
		time.Sleep(time.Second)
	}

	// the array: 4 shards of sbc, then merge
	model, err := filepath.Abs("../../examples/normal_mean.msc")
	require.NoError(t, err)
	data, err := filepath.Abs("../../examples/data/normal_mean.csv")
	require.NoError(t, err)
	flags := []string{"--sims", "12", "--seed", "3", "--iters", "200", "--fixed", "--draws", "500", "--chains", "2", "--quiet"}
	script := filepath.Join(dir, "sbc.sbatch")
	require.NoError(t, os.WriteFile(script, []byte(fmt.Sprintf("#!/bin/bash\nset -e\n%s sbc %s %s %s --shard auto --out %s/shards/shard-$SLURM_ARRAY_TASK_ID\n",
		bin, model, data, strings.Join(flags, " "), dir)), 0o755))
	start := time.Now()
	sb := exec.Command("sbatch", "--wait", "--array=0-3", "--cpus-per-task=1", "--output="+filepath.Join(dir, "task-%a.log"), script)
	sb.Env, sb.Dir = env, dir
	out, err = sb.CombinedOutput()
	tasks := ""
	for i := range 4 {
		b, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("task-%d.log", i)))
		tasks += fmt.Sprintf("== task %d\n%s", i, b)
	}
	require.NoError(t, err, "%s\n%s\n%s", out, tasks, logs())
	t.Logf("sbatch --wait: %s(%.1fs)\n%s", out, time.Since(start).Seconds(), tasks)
	var shards []string
	for i := range 4 {
		shards = append(shards, filepath.Join(dir, "shards", fmt.Sprintf("shard-%d", i)))
	}
	merged := filepath.Join(dir, "merged")
	out, err = exec.Command(bin, append([]string{"merge", "--out", merged}, shards...)...).CombinedOutput()
	require.NoError(t, err, string(out))
	whole := filepath.Join(dir, "whole")
	out, err = exec.Command(bin, append([]string{"sbc", model, data, "--out", whole}, flags...)...).CombinedOutput()
	require.NoError(t, err, string(out))
	require.Equal(t, setFilesOf(t, whole), setFilesOf(t, merged))
}
