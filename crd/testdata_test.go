package crd_test

// fooYAML is a CustomResourceDefinition as controller-gen writes one,
// status included.
const fooYAML = `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foos.samplecontroller.example.com
spec:
  group: samplecontroller.example.com
  scope: Namespaced
  names:
    kind: Foo
    listKind: FooList
    plural: foos
    singular: foo
  versions:
  - name: v1alpha1
    served: true
    storage: true
    subresources:
      status: {}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              deploymentName: {type: string}
              replicas: {type: integer, minimum: 1, maximum: 10}
          status:
            type: object
            properties:
              availableReplicas: {type: integer}
status:
  acceptedNames:
    kind: ""
    plural: ""
  conditions: null
  storedVersions: null
`

// barJSON is a cluster-scoped definition in JSON.
const barJSON = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"bars.samplecontroller.example.com"},
"spec":{"group":"samplecontroller.example.com","scope":"Cluster",
"names":{"kind":"Bar","listKind":"BarList","plural":"bars","singular":"bar"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`
