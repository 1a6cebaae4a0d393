package rbac

import (
	"bytes"
	"cmp"
	"maps"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// Options name the objects [Derive] makes.
type Options struct {
	// ServiceAccount is the account the program runs as: every role is
	// bound to it. Its Namespace and Name are required.
	ServiceAccount types.NamespacedName
	// Name names every role and binding made (a ClusterRole and its
	// ClusterRoleBinding, a Role and RoleBinding per namespace). Empty
	// means the service account's name.
	Name string
}

// Manifest is the RBAC objects that grant a program its permissions:
// roles, and the bindings that give them to its service account. Its
// objects carry their apiVersion and kind, ready to print or apply.
type Manifest struct {
	ClusterRoles        []rbacv1.ClusterRole
	ClusterRoleBindings []rbacv1.ClusterRoleBinding
	Roles               []rbacv1.Role
	RoleBindings        []rbacv1.RoleBinding
}

// Derive returns the Manifest that grants perms to opts.ServiceAccount
// and nothing more: a ClusterRole with the permissions of every namespace
// ("" Namespace) and a Role in each namespace named, each with its
// binding. Equal permissions are merged, and rules gathered (one rule per
// group, verbs and names, listing its resources), in a stable order. It
// returns an *OptionsError (wrapping [ErrInvalid]) for options without a
// service account, or a *PermissionError (wrapping ErrInvalid) for the
// first permission that cannot be a rule.
func Derive(perms []Permission, opts Options) (*Manifest, error) {
	if opts.ServiceAccount.Name == "" || opts.ServiceAccount.Namespace == "" {
		return nil, &OptionsError{Reason: "ServiceAccount needs a namespace and a name"}
	}
	if opts.Name == "" {
		opts.Name = opts.ServiceAccount.Name
	}
	type key struct{ ns, group, resource, url, names string }
	verbs := map[key]map[string]bool{}
	names := map[key][]string{}
	for _, p := range perms {
		if why := p.validate(); why != "" {
			return nil, &PermissionError{Permission: p, Reason: why}
		}
		ns := slices.Clone(p.Names)
		slices.Sort(ns)
		ns = slices.Compact(ns)
		k := key{ns: p.Namespace, group: p.Group, resource: p.Resource, url: p.URL, names: strings.Join(ns, "\x00")}
		if verbs[k] == nil {
			verbs[k] = map[string]bool{}
			names[k] = ns
		}
		for _, v := range p.Verbs {
			verbs[k][v] = true
		}
	}
	// Gather the permissions of each namespace into rules: one per group,
	// verbs and names (resources listed), one per verbs for URLs.
	type ruleKey struct{ group, verbs, names string }
	byNS := map[string]map[ruleKey]*rbacv1.PolicyRule{}
	for k, vs := range verbs {
		vl := orderVerbs(vs)
		rk := ruleKey{group: k.group, verbs: strings.Join(vl, ","), names: k.names}
		if k.url != "" {
			rk = ruleKey{group: "\x00url", verbs: rk.verbs}
		}
		if byNS[k.ns] == nil {
			byNS[k.ns] = map[ruleKey]*rbacv1.PolicyRule{}
		}
		r := byNS[k.ns][rk]
		if r == nil {
			r = &rbacv1.PolicyRule{Verbs: vl}
			if k.url == "" {
				r.APIGroups = []string{k.group}
				r.ResourceNames = names[k]
			}
			byNS[k.ns][rk] = r
		}
		if k.url != "" {
			r.NonResourceURLs = append(r.NonResourceURLs, k.url)
		} else {
			r.Resources = append(r.Resources, k.resource)
		}
	}
	m := &Manifest{}
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: opts.ServiceAccount.Namespace, Name: opts.ServiceAccount.Name}}
	for _, ns := range slices.Sorted(maps.Keys(byNS)) {
		rules := make([]rbacv1.PolicyRule, 0, len(byNS[ns]))
		for _, r := range byNS[ns] {
			slices.Sort(r.Resources)
			slices.Sort(r.NonResourceURLs)
			rules = append(rules, *r)
		}
		slices.SortFunc(rules, compareRules)
		if ns == "" {
			m.ClusterRoles = append(m.ClusterRoles, rbacv1.ClusterRole{
				TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"},
				ObjectMeta: metav1.ObjectMeta{Name: opts.Name}, Rules: rules,
			})
			m.ClusterRoleBindings = append(m.ClusterRoleBindings, rbacv1.ClusterRoleBinding{
				TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"},
				ObjectMeta: metav1.ObjectMeta{Name: opts.Name},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: opts.Name},
				Subjects:   slices.Clone(subject),
			})
			continue
		}
		m.Roles = append(m.Roles, rbacv1.Role{
			TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "Role"},
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: opts.Name}, Rules: rules,
		})
		m.RoleBindings = append(m.RoleBindings, rbacv1.RoleBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "RoleBinding"},
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: opts.Name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: opts.Name},
			Subjects:   slices.Clone(subject),
		})
	}
	return m, nil
}

// verbOrder is the order of the usual verbs in a derived rule; others
// follow, sorted.
var verbOrder = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}

func orderVerbs(set map[string]bool) []string {
	if set["*"] {
		return []string{"*"}
	}
	out := make([]string, 0, len(set))
	for _, v := range verbOrder {
		if set[v] {
			out = append(out, v)
		}
	}
	var rest []string
	for v := range set {
		if !slices.Contains(verbOrder, v) {
			rest = append(rest, v)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

func compareRules(a, b rbacv1.PolicyRule) int {
	return cmp.Or(
		cmp.Compare(len(a.NonResourceURLs), len(b.NonResourceURLs)), // resource rules first
		slices.Compare(a.APIGroups, b.APIGroups),
		slices.Compare(a.Resources, b.Resources),
		slices.Compare(a.ResourceNames, b.ResourceNames),
		slices.Compare(a.NonResourceURLs, b.NonResourceURLs),
		slices.Compare(a.Verbs, b.Verbs),
	)
}

// Objects returns the Manifest's objects in the order to apply them:
// ClusterRoles, ClusterRoleBindings, Roles, RoleBindings. They point into
// m: changing one changes m.
func (m *Manifest) Objects() []runtime.Object {
	var out []runtime.Object
	for i := range m.ClusterRoles {
		out = append(out, &m.ClusterRoles[i])
	}
	for i := range m.ClusterRoleBindings {
		out = append(out, &m.ClusterRoleBindings[i])
	}
	for i := range m.Roles {
		out = append(out, &m.Roles[i])
	}
	for i := range m.RoleBindings {
		out = append(out, &m.RoleBindings[i])
	}
	return out
}

// YAML returns the Manifest's objects as YAML documents separated by
// "---", in the order of Objects, for kubectl apply.
func (m *Manifest) YAML() ([]byte, error) {
	var b bytes.Buffer
	for i, o := range m.Objects() {
		y, err := yaml.Marshal(o)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(y)
	}
	return b.Bytes(), nil
}
