// Package crd builds CustomResourceDefinitions from Go types, installs
// them and waits until the API server serves them, for programs and tests
// alike (testenv uses it).
//
// Build assembles a definition from a Definition: the group, the kind
// (names derived from it unless given), the scope, and per version its Go
// type, whose schema apischema derives (json tags, kube struct tags,
// KubeSchema methods, the published schemas of k8s.io/api types), whether
// it is served, stored or deprecated, its status and scale subresources
// and printer columns:
//
//	def, err := crd.Build(crd.Definition{
//		Group: "batch.tutorial.kubebuilder.io", Kind: "CronJob",
//		Versions: []crd.Version{{Name: "v1", Type: crd.TypeOf[v1.CronJob](), Status: true}},
//	})
//
// CRDs are read from YAML or JSON (Parse, ReadFiles: files or directories,
// several documents per file, as controller-gen writes them) or converted
// from Go values (FromValue: an *unstructured.Unstructured, a map, or the
// apiextensions-apiserver Go types for those who import them), and handled
// as *unstructured.Unstructured, so this package does not depend on
// k8s.io/apiextensions-apiserver.
//
//	defs, err := crd.ReadFiles("config/crd")
//	...
//	err = crd.Install(ctx, dynamic.New(rc, dynamic.Options{}), defs, crd.InstallOptions{})
//
// Install applies each definition (server-side apply, so running it again
// updates instead of failing) and returns once every one is Established
// and each of its served versions answers a LIST, which is when clients
// and informers of the new resources can start.
//
// # Changing the storage version
//
// kube-apiserver stores each object in the version that was the storage
// version when the object was last written, and lists every version ever
// stored in status.storedVersions; a version still listed there cannot be
// removed from the definition. After making a new version the storage
// version, MigrateStorage (or a Migrator run by a leader-elected Manager)
// rewrites every object so that the server stores it in the new version,
// paginated, rate limited, resuming after a restart from the progress it
// keeps in the definition's MigrationAnnotation, and then removes the
// other versions from status.storedVersions:
//
//	mgr.Add(&crd.Migrator{Client: dc, Names: []string{"cronjobs.batch.tutorial.kubebuilder.io"}})
//
// Once it has, the old version can leave the definition's Versions.
package crd
