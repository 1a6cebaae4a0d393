package fake_test

import (
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// richDeployment is a Deployment whose pod template uses lists and structs
// of every kind the models distinguish: lists keyed by one field and by
// two, sets, atomic lists, atomic structs, int-or-string values.
func richDeployment() map[string]any {
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "rich", "labels": map[string]any{"app": "rich"}},
		"spec": map[string]any{
			"replicas": 2,
			"selector": map[string]any{"matchLabels": map[string]any{"app": "rich"}},
			"strategy": map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxSurge": "25%", "maxUnavailable": 1}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "rich"}, "annotations": map[string]any{"a": "b"}},
				"spec": map[string]any{
					"imagePullSecrets": []any{map[string]any{"name": "pull"}},
					"hostAliases":      []any{map[string]any{"ip": "10.0.0.1", "hostnames": []any{"a", "b"}}},
					"tolerations":      []any{map[string]any{"key": "k", "operator": "Exists", "effect": "NoSchedule"}},
					"affinity": map[string]any{"nodeAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{
						"nodeSelectorTerms": []any{map[string]any{"matchExpressions": []any{map[string]any{"key": "zone", "operator": "In", "values": []any{"a"}}}}},
					}}},
					"topologySpreadConstraints": []any{map[string]any{
						"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
						"labelSelector": map[string]any{"matchLabels": map[string]any{"app": "rich"}},
					}},
					"volumes": []any{
						map[string]any{"name": "cfg", "configMap": map[string]any{"name": "cfg", "items": []any{map[string]any{"key": "k", "path": "p"}}}},
						map[string]any{"name": "tmp", "emptyDir": map[string]any{}},
					},
					"containers": []any{map[string]any{
						"name": "app", "image": "registry.example/app:1", "args": []any{"--a", "--b"},
						"ports": []any{
							map[string]any{"name": "dns-tcp", "containerPort": 53, "protocol": "TCP"},
							map[string]any{"name": "dns-udp", "containerPort": 53, "protocol": "UDP"},
						},
						"env": []any{
							map[string]any{"name": "PLAIN", "value": "v"},
							map[string]any{"name": "SECRET", "valueFrom": map[string]any{"secretKeyRef": map[string]any{"name": "s", "key": "k"}}},
						},
						"envFrom":         []any{map[string]any{"configMapRef": map[string]any{"name": "cfg"}}},
						"volumeMounts":    []any{map[string]any{"name": "cfg", "mountPath": "/cfg"}, map[string]any{"name": "tmp", "mountPath": "/tmp"}},
						"resources":       map[string]any{"requests": map[string]any{"cpu": "100m"}, "limits": map[string]any{"memory": "64Mi"}},
						"readinessProbe":  map[string]any{"httpGet": map[string]any{"path": "/ready", "port": "http"}},
						"securityContext": map[string]any{"capabilities": map[string]any{"add": []any{"NET_ADMIN"}, "drop": []any{"ALL"}}},
					}},
				},
			},
		},
	}
}

// The fields a create (Update operation) and an apply of a rich workload
// record are those kube-apiserver records, field for field.
func richWorkloadManagedFields(e *env) {
	data, err := json.Marshal(richDeployment())
	must(e, err)
	var created, applied appsv1.Deployment
	must(e, e.c.Post().Group("apps").Version("v1").Namespace(e.ns).Resource("deployments").Param("fieldManager", "creator").
		Body(data).Do(e.ctx).Into(&created))
	wantFields(e, &created, "creator", metav1.ManagedFieldsOperationUpdate, richFieldsUpdate)
	must(e, e.c.Patch(types.ApplyYAMLPatchType).Group("apps").Version("v1").Namespace(e.ns).Resource("deployments").Name("rich").
		Param("fieldManager", "applier").Body(data).Do(e.ctx).Into(&applied))
	wantFields(e, &applied, "applier", metav1.ManagedFieldsOperationApply, richFieldsApply)
}

// The fieldsV1 kube-apiserver records for richDeployment: created (with
// the defaults it sets) and applied.
const (
	richFieldsUpdate = `{
	"f:metadata": {
		"f:labels": {
			".": {},
			"f:app": {}
		}
	},
	"f:spec": {
		"f:progressDeadlineSeconds": {},
		"f:replicas": {},
		"f:revisionHistoryLimit": {},
		"f:selector": {},
		"f:strategy": {
			"f:rollingUpdate": {
				".": {},
				"f:maxSurge": {},
				"f:maxUnavailable": {}
			},
			"f:type": {}
		},
		"f:template": {
			"f:metadata": {
				"f:annotations": {
					".": {},
					"f:a": {}
				},
				"f:labels": {
					".": {},
					"f:app": {}
				}
			},
			"f:spec": {
				"f:affinity": {
					".": {},
					"f:nodeAffinity": {
						".": {},
						"f:requiredDuringSchedulingIgnoredDuringExecution": {}
					}
				},
				"f:containers": {
					"k:{\"name\":\"app\"}": {
						".": {},
						"f:args": {},
						"f:env": {
							".": {},
							"k:{\"name\":\"PLAIN\"}": {
								".": {},
								"f:name": {},
								"f:value": {}
							},
							"k:{\"name\":\"SECRET\"}": {
								".": {},
								"f:name": {},
								"f:valueFrom": {
									".": {},
									"f:secretKeyRef": {}
								}
							}
						},
						"f:envFrom": {},
						"f:image": {},
						"f:imagePullPolicy": {},
						"f:name": {},
						"f:ports": {
							".": {},
							"k:{\"containerPort\":53,\"protocol\":\"TCP\"}": {
								".": {},
								"f:containerPort": {},
								"f:name": {},
								"f:protocol": {}
							},
							"k:{\"containerPort\":53,\"protocol\":\"UDP\"}": {
								".": {},
								"f:containerPort": {},
								"f:name": {},
								"f:protocol": {}
							}
						},
						"f:readinessProbe": {
							".": {},
							"f:failureThreshold": {},
							"f:httpGet": {
								".": {},
								"f:path": {},
								"f:port": {},
								"f:scheme": {}
							},
							"f:periodSeconds": {},
							"f:successThreshold": {},
							"f:timeoutSeconds": {}
						},
						"f:resources": {
							".": {},
							"f:limits": {
								".": {},
								"f:memory": {}
							},
							"f:requests": {
								".": {},
								"f:cpu": {}
							}
						},
						"f:securityContext": {
							".": {},
							"f:capabilities": {
								".": {},
								"f:add": {},
								"f:drop": {}
							}
						},
						"f:terminationMessagePath": {},
						"f:terminationMessagePolicy": {},
						"f:volumeMounts": {
							".": {},
							"k:{\"mountPath\":\"/cfg\"}": {
								".": {},
								"f:mountPath": {},
								"f:name": {}
							},
							"k:{\"mountPath\":\"/tmp\"}": {
								".": {},
								"f:mountPath": {},
								"f:name": {}
							}
						}
					}
				},
				"f:dnsPolicy": {},
				"f:hostAliases": {
					".": {},
					"k:{\"ip\":\"10.0.0.1\"}": {
						".": {},
						"f:hostnames": {},
						"f:ip": {}
					}
				},
				"f:imagePullSecrets": {
					".": {},
					"k:{\"name\":\"pull\"}": {}
				},
				"f:restartPolicy": {},
				"f:schedulerName": {},
				"f:securityContext": {},
				"f:terminationGracePeriodSeconds": {},
				"f:tolerations": {},
				"f:topologySpreadConstraints": {
					".": {},
					"k:{\"topologyKey\":\"zone\",\"whenUnsatisfiable\":\"DoNotSchedule\"}": {
						".": {},
						"f:labelSelector": {},
						"f:maxSkew": {},
						"f:topologyKey": {},
						"f:whenUnsatisfiable": {}
					}
				},
				"f:volumes": {
					".": {},
					"k:{\"name\":\"cfg\"}": {
						".": {},
						"f:configMap": {
							".": {},
							"f:defaultMode": {},
							"f:items": {},
							"f:name": {}
						},
						"f:name": {}
					},
					"k:{\"name\":\"tmp\"}": {
						".": {},
						"f:emptyDir": {},
						"f:name": {}
					}
				}
			}
		}
	}
}`
	richFieldsApply = `{
	"f:metadata": {
		"f:labels": {
			"f:app": {}
		}
	},
	"f:spec": {
		"f:replicas": {},
		"f:selector": {},
		"f:strategy": {
			"f:rollingUpdate": {
				"f:maxSurge": {},
				"f:maxUnavailable": {}
			},
			"f:type": {}
		},
		"f:template": {
			"f:metadata": {
				"f:annotations": {
					"f:a": {}
				},
				"f:labels": {
					"f:app": {}
				}
			},
			"f:spec": {
				"f:affinity": {
					"f:nodeAffinity": {
						"f:requiredDuringSchedulingIgnoredDuringExecution": {}
					}
				},
				"f:containers": {
					"k:{\"name\":\"app\"}": {
						".": {},
						"f:args": {},
						"f:env": {
							"k:{\"name\":\"PLAIN\"}": {
								".": {},
								"f:name": {},
								"f:value": {}
							},
							"k:{\"name\":\"SECRET\"}": {
								".": {},
								"f:name": {},
								"f:valueFrom": {
									"f:secretKeyRef": {}
								}
							}
						},
						"f:envFrom": {},
						"f:image": {},
						"f:name": {},
						"f:ports": {
							"k:{\"containerPort\":53,\"protocol\":\"TCP\"}": {
								".": {},
								"f:containerPort": {},
								"f:name": {},
								"f:protocol": {}
							},
							"k:{\"containerPort\":53,\"protocol\":\"UDP\"}": {
								".": {},
								"f:containerPort": {},
								"f:name": {},
								"f:protocol": {}
							}
						},
						"f:readinessProbe": {
							"f:httpGet": {
								"f:path": {},
								"f:port": {}
							}
						},
						"f:resources": {
							"f:limits": {
								"f:memory": {}
							},
							"f:requests": {
								"f:cpu": {}
							}
						},
						"f:securityContext": {
							"f:capabilities": {
								"f:add": {},
								"f:drop": {}
							}
						},
						"f:volumeMounts": {
							"k:{\"mountPath\":\"/cfg\"}": {
								".": {},
								"f:mountPath": {},
								"f:name": {}
							},
							"k:{\"mountPath\":\"/tmp\"}": {
								".": {},
								"f:mountPath": {},
								"f:name": {}
							}
						}
					}
				},
				"f:hostAliases": {
					"k:{\"ip\":\"10.0.0.1\"}": {
						".": {},
						"f:hostnames": {},
						"f:ip": {}
					}
				},
				"f:imagePullSecrets": {
					"k:{\"name\":\"pull\"}": {}
				},
				"f:tolerations": {},
				"f:topologySpreadConstraints": {
					"k:{\"topologyKey\":\"zone\",\"whenUnsatisfiable\":\"DoNotSchedule\"}": {
						".": {},
						"f:labelSelector": {},
						"f:maxSkew": {},
						"f:topologyKey": {},
						"f:whenUnsatisfiable": {}
					}
				},
				"f:volumes": {
					"k:{\"name\":\"cfg\"}": {
						".": {},
						"f:configMap": {
							"f:items": {},
							"f:name": {}
						},
						"f:name": {}
					},
					"k:{\"name\":\"tmp\"}": {
						".": {},
						"f:emptyDir": {},
						"f:name": {}
					}
				}
			}
		}
	}
}`
)
