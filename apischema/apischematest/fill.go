package apischematest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"
)

// Filler returns a randfill.Filler seeded with seed that fills values the
// way apimachinery's fuzzer does (random values of every field, nil
// pointers, empty and short lists and maps), with the types of
// apimachinery filled with values they can hold on the wire: times of
// whole seconds (microseconds for MicroTime), quantities and
// int-or-strings in canonical form, raw extensions and raw JSON holding
// a JSON object.
func Filler(seed uint64) *randfill.Filler {
	return randfill.NewWithSeed(int64(seed)).NilChance(0.2).NumElements(0, 3).Funcs(
		func(t *metav1.Time, c randfill.Continue) {
			*t = metav1.Unix(c.Int63n(4_000_000_000), 0)
		},
		func(t *metav1.MicroTime, c randfill.Continue) {
			*t = metav1.NewMicroTime(time.Unix(c.Int63n(4_000_000_000), c.Int63n(1_000_000)*1000))
		},
		func(d *metav1.Duration, c randfill.Continue) {
			d.Duration = time.Duration(c.Int63n(1_000_000)) * time.Millisecond
		},
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewMilliQuantity(c.Int63n(1_000_000), resource.DecimalSI)
		},
		func(v *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*v = intstr.FromInt32(c.Int31())
			} else {
				*v = intstr.FromString(word(c))
			}
		},
		func(r *runtime.RawExtension, c randfill.Continue) {
			r.Raw = []byte(fmt.Sprintf(`{"k":%q}`, word(c)))
		},
		func(r *json.RawMessage, c randfill.Continue) {
			*r = []byte(fmt.Sprintf(`{"n":%d}`, c.Int31()))
		},
	)
}

// word is a short lower-case word.
func word(c randfill.Continue) string {
	b := make([]byte, 1+c.Intn(8))
	for i := range b {
		b[i] = byte('a' + c.Intn(26))
	}
	return string(b)
}

// Fill returns a Sample named name with every field random but within its
// declarations (enums, bounds, patterns, formats, list keys, CEL rules), so
// that the server accepts it as it is.
func Fill(f *randfill.Filler, r *rand.Rand, name string) *Sample {
	var s Sample
	f.Fill(&s.Spec)
	s.TypeMeta = metav1.TypeMeta{APIVersion: GroupVersion.String(), Kind: "Sample"}
	s.ObjectMeta = metav1.ObjectMeta{Name: name}
	sp := &s.Spec
	sp.Float32 = float32(r.NormFloat64())
	sp.Float64 = r.NormFloat64() * 1e6
	sp.Skipped = ""
	colors := []Color{"", "red", "green", "blue"}
	sp.Color = colors[r.IntN(len(colors))]
	if sp.Replicas != nil {
		*sp.Replicas = r.Int32N(11)
	}
	sp.Ratio = float64(r.IntN(100)) / 100
	sp.Step = 5 * r.Int32N(100)
	sp.Name = lower(r, 1+r.IntN(20))
	if sp.Name == "admin" {
		sp.Name = "root"
	}
	sp.Email = ""
	if r.IntN(2) == 0 {
		sp.Email = lower(r, 5) + "@example.com"
	}
	sp.Mode = []string{"fast", "slow"}[r.IntN(2)]
	sp.Tags = uniqueWords(r, r.IntN(6))
	if len(sp.Labels) > 3 {
		sp.Labels = map[string]string{"a": "1"}
	}
	var items []Item
	for i, n := range uniqueWords(r, len(sp.Items)) {
		items = append(items, Item{Name: n, Value: sp.Items[i].Value})
	}
	sp.Items = items
	if sp.Extra != nil {
		sp.Extra = &Extra{Known: sp.Extra.Known}
	}
	if sp.Embedded != nil {
		sp.Embedded = &corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: lower(r, 6)},
			Data:       sp.Embedded.Data,
		}
	}
	if sp.Window != nil && sp.Window.Start > sp.Window.End {
		sp.Window.Start, sp.Window.End = sp.Window.End, sp.Window.Start
	}
	sp.Resources.Claims = nil
	if sp.MustHave == nil {
		must := lower(r, 3)
		sp.MustHave = &must
	}
	if sp.Selector != nil {
		sp.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{lower(r, 3): lower(r, 3)}}
	}
	if r.IntN(2) == 0 {
		var st SampleStatus
		for _, t := range uniqueWords(r, r.IntN(3)) {
			st.Conditions = append(st.Conditions, metav1.Condition{
				Type: t, Status: metav1.ConditionTrue, Reason: "Because", Message: lower(r, 10),
				LastTransitionTime: metav1.Unix(r.Int64N(4_000_000_000), 0), ObservedGeneration: r.Int64N(100),
			})
		}
		s.Status = &st
	}
	return &s
}

func lower(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + r.IntN(26))
	}
	return string(b)
}

func uniqueWords(r *rand.Rand, n int) []string {
	var out []string
	seen := map[string]bool{}
	for len(out) < n {
		w := lower(r, 1+r.IntN(6))
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}
