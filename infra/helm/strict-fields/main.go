// strict-fields reads `helm template` output on stdin and decodes each object into its Kubernetes Go type with
// unknown fields refused: the check kubernetes-models' schemas leave out (they accept a misspelt field, such as
// `periodSecond` in a probe, which the API server would drop or refuse). One line per finding; exit 1 on any error.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"
)

// The kinds the chart renders; another kind is reported UNCHECKED for the caller to judge.
var kinds = map[string]func() any{
	"v1/Secret":                              func() any { return &corev1.Secret{} },
	"v1/Service":                             func() any { return &corev1.Service{} },
	"v1/ConfigMap":                           func() any { return &corev1.ConfigMap{} },
	"apps/v1/Deployment":                     func() any { return &appsv1.Deployment{} },
	"apps/v1/StatefulSet":                    func() any { return &appsv1.StatefulSet{} },
	"policy/v1/PodDisruptionBudget":          func() any { return &policyv1.PodDisruptionBudget{} },
	"autoscaling/v2/HorizontalPodAutoscaler": func() any { return &autoscalingv2.HorizontalPodAutoscaler{} },
	"networking.k8s.io/v1/Ingress":           func() any { return &networkingv1.Ingress{} },
}

type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
}

func documents(input io.Reader) ([]string, error) {
	var docs []string
	var current strings.Builder
	scanner := bufio.NewScanner(input)
	scanner.Buffer(make([]byte, 1<<20), 16<<20)
	for scanner.Scan() {
		line := scanner.Text()
		if strings.TrimRight(line, " ") == "---" {
			docs = append(docs, current.String())
			current.Reset()
			continue
		}
		current.WriteString(line + "\n")
	}
	return append(docs, current.String()), scanner.Err()
}

func main() {
	docs, err := documents(os.Stdin)
	if err != nil {
		fmt.Printf("ERROR reading stdin: %v\n", err)
		os.Exit(1)
	}
	failed := false
	for _, doc := range docs {
		var h header
		if err := yaml.Unmarshal([]byte(doc), &h); err != nil {
			fmt.Printf("ERROR a document does not parse: %v\n", err)
			failed = true
			continue
		}
		if h.Kind == "" {
			continue // an empty document: a template that rendered nothing
		}
		newObject, known := kinds[h.APIVersion+"/"+h.Kind]
		if !known {
			fmt.Printf("UNCHECKED %s %s %s\n", h.APIVersion, h.Kind, h.Metadata.Name)
			continue
		}
		if err := yaml.UnmarshalStrict([]byte(doc), newObject()); err != nil {
			fmt.Printf("ERROR %s %s: %v\n", h.Kind, h.Metadata.Name, err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}
