// The kubelet's view of a pod's command line: reads a v1 PodList (kubectl get pods
// -o json) on stdin and writes, per pod and container, the command and args the
// kubelet would start, as JSON lines. The environment is resolved as the kubelet's
// makeEnvironmentVariables does for the sources a Job's pod uses (literal values,
// themselves expanded from the variables before them, and downward-API fieldRefs
// through the same field-label conversion and field path reader); then the command
// and args are expanded with the kubelet's own $(VAR) expansion package. Sources
// that need a node (secrets, config maps, resource fields, host or pod IPs) are
// reported as unsupported rather than guessed.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	v1 "k8s.io/api/core/v1"
	podshelper "k8s.io/kubernetes/pkg/apis/core/pods"
	"k8s.io/kubernetes/pkg/fieldpath"
	"k8s.io/kubernetes/third_party/forked/golang/expansion"
)

type started struct {
	Pod       string            `json:"pod"`
	Container string            `json:"container"`
	Env       map[string]string `json:"env"`
	Command   []string          `json:"command"`
	Args      []string          `json:"args"`
}

func env(pod *v1.Pod, c *v1.Container) (map[string]string, error) {
	vars := map[string]string{}
	mapping := expansion.MappingFuncFor(vars)
	for _, e := range c.Env {
		value := e.Value
		switch {
		case value != "":
			value = expansion.Expand(value, mapping)
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil:
			path, _, err := podshelper.ConvertDownwardAPIFieldLabel(e.ValueFrom.FieldRef.APIVersion, e.ValueFrom.FieldRef.FieldPath, "")
			if err != nil {
				return nil, err
			}
			switch path {
			case "spec.nodeName":
				value = pod.Spec.NodeName
			case "spec.serviceAccountName":
				value = pod.Spec.ServiceAccountName
			case "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs":
				return nil, fmt.Errorf("env %s: %s needs a node", e.Name, path)
			default:
				if value, err = fieldpath.ExtractFieldPathAsString(pod, path); err != nil {
					return nil, err
				}
			}
		case e.ValueFrom != nil:
			return nil, fmt.Errorf("env %s: only values and fieldRefs are resolved here", e.Name)
		}
		vars[e.Name] = value
	}
	return vars, nil
}

func main() {
	var pods v1.PodList
	if err := json.NewDecoder(os.Stdin).Decode(&pods); err != nil {
		fmt.Fprintf(os.Stderr, "oracle-kubelet-expansion: reading a PodList: %v\n", err)
		os.Exit(2)
	}
	out := json.NewEncoder(os.Stdout)
	for i := range pods.Items {
		pod := &pods.Items[i]
		for j := range pod.Spec.Containers {
			c := &pod.Spec.Containers[j]
			vars, err := env(pod, c)
			if err != nil {
				fmt.Fprintf(os.Stderr, "oracle-kubelet-expansion: pod %s container %s: %v\n", pod.Name, c.Name, err)
				os.Exit(1)
			}
			// As the kubelet's ExpandContainerCommandAndArgs: each element expanded alone.
			mapping := expansion.MappingFuncFor(vars)
			s := started{Pod: pod.Name, Container: c.Name, Env: vars, Command: []string{}, Args: []string{}}
			for _, a := range c.Command {
				s.Command = append(s.Command, expansion.Expand(a, mapping))
			}
			for _, a := range c.Args {
				s.Args = append(s.Args, expansion.Expand(a, mapping))
			}
			if err := out.Encode(s); err != nil {
				os.Exit(1)
			}
		}
	}
}
