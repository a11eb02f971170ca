package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// The Kubernetes manifests of examples/cluster are checked against the
// batch/v1 Job schema (Kubernetes' OpenAPI definitions io.k8s.api.batch.v1.Job,
// JobSpec, io.k8s.api.core.v1.PodTemplateSpec, PodSpec, Container, Volume):
// the fields each object may have, the ones it must have, and the rules of
// the Job controller that the schema leaves to validation (restartPolicy
// Never or OnFailure; Indexed needs completions; backoffLimitPerIndex
// needs Indexed). No cluster is needed.

// k8sObject is one object type of the schema: its fields (each with the
// type of its value: "" for a scalar, "[]T" for a list of T, or T), and
// those required.
type k8sObject struct {
	fields   map[string]string
	required []string
}

var k8sSchema = map[string]k8sObject{
	"Job": {map[string]string{"apiVersion": "", "kind": "", "metadata": "ObjectMeta", "spec": "JobSpec", "status": ""},
		[]string{"apiVersion", "kind", "metadata", "spec"}},
	"ObjectMeta": {map[string]string{"name": "", "namespace": "", "labels": "", "annotations": "", "generateName": ""}, nil},
	"JobSpec": {map[string]string{"activeDeadlineSeconds": "", "backoffLimit": "", "backoffLimitPerIndex": "", "completionMode": "",
		"completions": "", "managedBy": "", "manualSelector": "", "maxFailedIndexes": "", "parallelism": "", "podFailurePolicy": "",
		"podReplacementPolicy": "", "selector": "", "successPolicy": "", "suspend": "", "template": "PodTemplateSpec", "ttlSecondsAfterFinished": ""},
		[]string{"template"}},
	"PodTemplateSpec": {map[string]string{"metadata": "ObjectMeta", "spec": "PodSpec"}, []string{"spec"}},
	"PodSpec": {map[string]string{"containers": "[]Container", "initContainers": "[]Container", "restartPolicy": "", "volumes": "[]Volume",
		"nodeSelector": "", "affinity": "", "tolerations": "", "serviceAccountName": "", "securityContext": "", "imagePullSecrets": ""},
		[]string{"containers"}},
	"Container": {map[string]string{"name": "", "image": "", "command": "", "args": "", "env": "", "envFrom": "", "resources": "",
		"volumeMounts": "[]VolumeMount", "workingDir": "", "imagePullPolicy": "", "securityContext": ""},
		[]string{"name"}},
	"VolumeMount": {map[string]string{"name": "", "mountPath": "", "readOnly": "", "subPath": ""}, []string{"name", "mountPath"}},
	"Volume": {map[string]string{"name": "", "persistentVolumeClaim": "", "configMap": "", "emptyDir": "", "hostPath": "", "nfs": ""},
		[]string{"name"}},
}

// checkSchema reports the fields of v (of object type typ at path) that
// the schema does not know or that are missing.
func checkSchema(path, typ string, v any) []string {
	obj, ok := k8sSchema[typ]
	if !ok {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return []string{fmt.Sprintf("%s: a %s must be an object", path, typ)}
	}
	var errs []string
	for _, r := range obj.required {
		if _, ok := m[r]; !ok {
			errs = append(errs, fmt.Sprintf("%s: %s requires %s", path, typ, r))
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		ft, ok := obj.fields[k]
		if !ok {
			errs = append(errs, fmt.Sprintf("%s: %s has no field %s", path, typ, k))
			continue
		}
		if elem, list := strings.CutPrefix(ft, "[]"); list {
			items, ok := m[k].([]any)
			if !ok {
				errs = append(errs, fmt.Sprintf("%s.%s: must be a list", path, k))
				continue
			}
			for i, it := range items {
				errs = append(errs, checkSchema(fmt.Sprintf("%s.%s[%d]", path, k, i), elem, it)...)
			}
			continue
		}
		errs = append(errs, checkSchema(path+"."+k, ft, m[k])...)
	}
	return errs
}

// get follows a path of keys through nested maps.
func get(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// jobRules are the Job controller's rules the schema does not express.
func jobRules(job map[string]any) []string {
	var errs []string
	if job["apiVersion"] != "batch/v1" || job["kind"] != "Job" {
		errs = append(errs, fmt.Sprintf("apiVersion %v, kind %v: want batch/v1 Job", job["apiVersion"], job["kind"]))
	}
	name, _ := get(job, "metadata", "name").(string)
	if !regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`).MatchString(name) {
		errs = append(errs, fmt.Sprintf("metadata.name %q is not a DNS label", name))
	}
	if rp := get(job, "spec", "template", "spec", "restartPolicy"); rp != "Never" && rp != "OnFailure" {
		errs = append(errs, fmt.Sprintf("restartPolicy %v: a Job's must be Never or OnFailure", rp))
	}
	mode := get(job, "spec", "completionMode")
	if mode != nil && mode != "Indexed" && mode != "NonIndexed" {
		errs = append(errs, fmt.Sprintf("completionMode %v", mode))
	}
	completions, _ := get(job, "spec", "completions").(int)
	if mode == "Indexed" && completions < 1 {
		errs = append(errs, "an Indexed Job needs completions")
	}
	if get(job, "spec", "backoffLimitPerIndex") != nil && mode != "Indexed" {
		errs = append(errs, "backoffLimitPerIndex needs completionMode Indexed")
	}
	if p, ok := get(job, "spec", "parallelism").(int); ok && completions > 0 && p > completions {
		errs = append(errs, fmt.Sprintf("parallelism %d above completions %d", p, completions))
	}
	volumes := map[string]bool{}
	vs, _ := get(job, "spec", "template", "spec", "volumes").([]any)
	for _, v := range vs {
		volumes[fmt.Sprint(get(v, "name"))] = true
	}
	cs, _ := get(job, "spec", "template", "spec", "containers").([]any)
	for _, c := range cs {
		if img, _ := get(c, "image").(string); img == "" {
			errs = append(errs, fmt.Sprintf("container %v has no image", get(c, "name")))
		}
		ms, _ := get(c, "volumeMounts").([]any)
		for _, m := range ms {
			if !volumes[fmt.Sprint(get(m, "name"))] {
				errs = append(errs, fmt.Sprintf("volumeMount %v names no volume", get(m, "name")))
			}
		}
	}
	return errs
}

func readJob(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var job map[string]any
	require.NoError(t, yaml.Unmarshal(b, &job))
	return job
}

func containerArgs(job map[string]any) []string {
	var out []string
	cs, _ := get(job, "spec", "template", "spec", "containers").([]any)
	for _, c := range cs {
		for _, f := range []string{"command", "args"} {
			xs, _ := get(c, f).([]any)
			for _, x := range xs {
				out = append(out, fmt.Sprint(x))
			}
		}
	}
	return out
}

// TestClusterManifests: the Indexed Job and the merge Job of
// examples/cluster follow the batch/v1 Job schema and rules, the shards'
// count is the Job's completions, each pod writes the folder of its index,
// and the merge Job merges exactly those folders; the checker itself
// rejects broken manifests.
func TestClusterManifests(t *testing.T) {
	dir := "../../examples/cluster"
	sbc, merge := readJob(t, filepath.Join(dir, "sbc-job.yaml")), readJob(t, filepath.Join(dir, "merge-job.yaml"))
	for _, j := range []map[string]any{sbc, merge} {
		require.Empty(t, checkSchema("job", "Job", j))
		require.Empty(t, jobRules(j))
	}
	require.Equal(t, "Indexed", get(sbc, "spec", "completionMode"))
	n := get(sbc, "spec", "completions").(int)
	args := containerArgs(sbc)
	require.Equal(t, "mscppl", args[0])
	require.Equal(t, "sbc", args[1])
	i := slices.Index(args, "--shard")
	require.Positive(t, i)
	require.Equal(t, "auto/"+strconv.Itoa(n), args[i+1])
	o := slices.Index(args, "--out")
	require.Positive(t, o)
	prefix, ok := strings.CutSuffix(args[o+1], "$(JOB_COMPLETION_INDEX)")
	require.True(t, ok, "the shard's folder names its index: %s", args[o+1])
	margs := containerArgs(merge)
	require.Equal(t, []string{"mscppl", "merge"}, margs[:2])
	var want []string
	for k := range n {
		want = append(want, prefix+strconv.Itoa(k))
	}
	mo := slices.Index(margs, "--out")
	require.Equal(t, want, margs[2:mo])
	// the pods' commands run here, on the repository's examples and a
	// temporary folder for the volume, with 8 short simulations
	results := t.TempDir()
	local := func(a string) string {
		a = strings.Replace(a, "/mscppl/examples", "../../examples", 1)
		return strings.Replace(a, "/results", results, 1)
	}
	old := getenv
	defer func() { getenv = old }()
	for k := range n {
		getenv = func(v string) string {
			if v == "JOB_COMPLETION_INDEX" {
				return strconv.Itoa(k)
			}
			return ""
		}
		var run []string
		for j, a := range args[1:] {
			switch {
			case j > 0 && args[j] == "--sims":
				a = "8"
			case strings.Contains(a, "$(JOB_COMPLETION_INDEX)"): // as Kubernetes expands it
				a = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", strconv.Itoa(k))
			}
			run = append(run, local(a))
		}
		code, _, errOut := mscppl(append(run, "--iters", "100", "--fixed", "--draws", "300", "--chains", "2")...)
		require.Equal(t, 0, code, errOut)
	}
	var mrun []string
	for _, a := range margs[1:] {
		mrun = append(mrun, local(a))
	}
	code, out, errOut := mscppl(mrun...)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "8 simulations")
	require.FileExists(t, filepath.Join(results, "sbc", "summary.json"))
	// the checker catches a typo, a missing field and a wrong policy
	broken := readJob(t, filepath.Join(dir, "sbc-job.yaml"))
	spec := broken["spec"].(map[string]any)
	spec["completion"] = spec["completions"]
	delete(spec, "completions")
	pod := get(broken, "spec", "template", "spec").(map[string]any)
	pod["restartPolicy"] = "Always"
	delete(pod["containers"].([]any)[0].(map[string]any), "name")
	errs := append(checkSchema("job", "Job", broken), jobRules(broken)...)
	require.Len(t, errs, 4, "%q", errs)
}

// TestClusterScripts: the Slurm scripts are valid bash, and the array's
// size is what --shard auto reads.
func TestClusterScripts(t *testing.T) {
	dir := "../../examples/cluster"
	for _, s := range []string{"sbc.sbatch", "submit.sh"} {
		out, err := exec.Command("bash", "-n", filepath.Join(dir, s)).CombinedOutput()
		require.NoError(t, err, string(out))
	}
	b, err := os.ReadFile(filepath.Join(dir, "sbc.sbatch"))
	require.NoError(t, err)
	require.Regexp(t, `(?m)^#SBATCH --array=0-3$`, string(b))
	require.True(t, bytes.Contains(b, []byte("--shard auto")))
}
