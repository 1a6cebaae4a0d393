package informer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/internal/codec/wire"
)

// alnumText returns n random lower-case letters and digits: the data of
// the repository's bench fixtures for ConfigMaps and Secrets.
func alnumText(r *rand.Rand, n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// configText returns about n bytes of configuration as people write it:
// YAML of services with names, ports, hosts, flags and comments.
func configText(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "# service %d of the shop\nservice-%d:\n  host: svc-%d.shop.svc.cluster.local\n  port: %d\n", i, i, r.IntN(1000), 8000+r.IntN(1000))
		fmt.Fprintf(&b, "  timeout: %ds\n  retries: %d\n  enabled: %t\n  token: %s\n", 1+r.IntN(60), r.IntN(5), r.IntN(2) == 0, alnumText(r, 16))
	}
	return b.String()[:n]
}

// randomBytes returns n bytes that do not compress.
func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// dataCM returns ConfigMap name in namespace ns, labelled app=web, with
// data values made by text.
func dataCM(ns, name string, values ...string) *corev1.ConfigMap {
	c := cm(ns, name, "7", "app", "web")
	c.Annotations = map[string]string{"example.com/owner": "team-a"}
	c.Data = map[string]string{}
	for i, v := range values {
		c.Data["file-"+strconv.Itoa(i)+".conf"] = v
	}
	return c
}

// isZipped reports whether raw, a stored encoding, is compressed.
func isZipped(t *testing.T, raw []byte) bool {
	t.Helper()
	_, _, _, rest, err := wire.Field(raw)
	if err != nil {
		t.Fatalf("stored encoding unreadable: %v", err)
	}
	tag, n := binary.Uvarint(rest)
	return n > 0 && tag == zipTag
}

// storedRaw returns the encoding s holds under k.
func storedRaw[T Object](t *testing.T, s *cacheStore[T], k Key) []byte {
	t.Helper()
	held := s.heldPacked(k)
	if !held.pk.ok() {
		t.Fatalf("%s not stored packed", k)
	}
	return held.pk.raw()
}

// checkStored stores obj in a compact store with an index and checks that
// it is compressed as want says and that every read answers as for the
// object itself.
func checkStored[T Object](t *testing.T, obj T, wantZipped bool) {
	t.Helper()
	byOwner := map[string]IndexFunc[T]{"owner": func(o T) []string { return []string{o.GetAnnotations()["example.com/owner"]} }}
	s := newStore(byOwner, nil, newPacker[T]())
	s.put(obj)
	k := KeyOf(obj)
	raw := storedRaw(t, s, k)
	if z := isZipped(t, raw); z != wantZipped {
		t.Fatalf("stored compressed %t, want %t (%d bytes stored)", z, wantZipped, len(raw))
	}
	got, ok := s.Get(k)
	if !ok || !apiequality.Semantic.DeepEqual(got, obj) {
		t.Fatalf("Get returned another object:\n got %v\nwant %v", got, obj)
	}
	if rv, _ := s.heldRV(k); rv != obj.GetResourceVersion() {
		t.Fatalf("resourceVersion read in place: %q", rv)
	}
	if sk := s.Keys(); len(sk) != 1 || sk[0] != k {
		t.Fatalf("keys read in place: %v", sk)
	}
	sel := labels.SelectorFromSet(labels.Set(obj.GetLabels()))
	if l := s.List(sel); len(l) != 1 || !apiequality.Semantic.DeepEqual(l[0], obj) {
		t.Fatalf("List with selector %s found %d", sel, len(l))
	}
	if l := s.List(labels.SelectorFromSet(labels.Set{"app": "none"})); len(l) != 0 {
		t.Fatalf("List with a selector matching nothing found %d", len(l))
	}
	if l, _ := s.ByIndex("owner", obj.GetAnnotations()["example.com/owner"]); len(l) != 1 || !apiequality.Semantic.DeepEqual(l[0], obj) {
		t.Fatalf("ByIndex found %d", len(l))
	}
	if l, _ := s.ByIndex(NamespaceIndex, k.Namespace); len(l) != 1 {
		t.Fatalf("ByIndex(namespace) found %d", len(l))
	}
}

func TestCompressionKeepsWhatEveryReadSees(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	pod := shapePod(3, false)
	pod.Annotations["example.com/owner"] = "team-a"
	secret := func(data ...[]byte) *corev1.Secret {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s", ResourceVersion: "9",
			Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"example.com/owner": "team-a"}},
			Type: corev1.SecretTypeOpaque, Data: map[string][]byte{}}
		for i, d := range data {
			s.Data["key-"+strconv.Itoa(i)] = d
		}
		return s
	}
	cases := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"a ConfigMap of 6 KiB of configuration text is compressed", func(t *testing.T) {
			checkStored(t, dataCM("ns", "a", configText(r, 3<<10), configText(r, 3<<10)), true)
		}},
		{"a ConfigMap of 5 KiB of random letters and digits is compressed", func(t *testing.T) {
			checkStored(t, dataCM("ns", "a", alnumText(r, 1280), alnumText(r, 1280), alnumText(r, 1280), alnumText(r, 1280)), true)
		}},
		{"a ConfigMap of 40 KiB of configuration text is compressed into a chunk", func(t *testing.T) {
			checkStored(t, dataCM("ns", "a", configText(r, 40<<10)), true)
		}},
		{"a ConfigMap of 1 KiB stays plain", func(t *testing.T) {
			checkStored(t, dataCM("ns", "a", configText(r, 1<<10)), false)
		}},
		{"a realistic Pod stays plain", func(t *testing.T) { checkStored(t, pod, false) }},
		{"a Secret of 5 KiB of tokens is compressed", func(t *testing.T) {
			checkStored(t, secret([]byte(alnumText(r, 2560)), []byte(alnumText(r, 2560))), true)
		}},
		{"a Secret of 8 KiB of random bytes stays plain", func(t *testing.T) {
			checkStored(t, secret(randomBytes(r, 8<<10)), false)
		}},
		{"a Secret of 100 KiB of random bytes stays plain in an allocation of its own", func(t *testing.T) {
			checkStored(t, secret(randomBytes(r, 100<<10)), false)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, c.check)
	}
}

func TestCompressionIsOffWithDisableCompression(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 12))
	inf := New(Funcs[*corev1.ConfigMap]{}, Options[*corev1.ConfigMap]{DisableCompression: true})
	s := (*sink[*corev1.ConfigMap])(inf)
	big := dataCM("ns", "a", configText(r, 8<<10))
	s.Add(big)
	if isZipped(t, storedRaw(t, inf.store, KeyOf(big))) {
		t.Fatal("DisableCompression stored a compressed encoding")
	}
	if got, _ := inf.Lister().GetKey(KeyOf(big)); !apiequality.Semantic.DeepEqual(got, big) {
		t.Fatal("Get returned another object")
	}
	on := New(Funcs[*corev1.ConfigMap]{}, Options[*corev1.ConfigMap]{})
	(*sink[*corev1.ConfigMap])(on).Add(big)
	if !isZipped(t, storedRaw(t, on.store, KeyOf(big))) {
		t.Fatal("the default stored a large ConfigMap uncompressed")
	}
}

func TestCompressedObjectsThroughAnInformer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(13, 13))
		v := func(name, rv, text string) *corev1.ConfigMap {
			c := dataCM("ns", name, text)
			c.ResourceVersion = rv
			return c
		}
		a1, b1 := v("a", "1", configText(r, 6<<10)), v("b", "2", configText(r, 6<<10))
		a2, c3 := v("a", "11", configText(r, 6<<10)), v("c", "12", configText(r, 6<<10))
		relisted := v("d", "21", configText(r, 6<<10))
		w := watch.NewFake()
		lw := (&fakeLW{}).onList(listOf("10", a1, b1), listOf("20", a2, relisted)).
			onWatch(watchCh(w), watchWith(false))
		inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
		var mu sync.Mutex
		var log []string
		bad := 0
		want := map[string]*corev1.ConfigMap{}
		for _, o := range []*corev1.ConfigMap{a1, b1, a2, c3, relisted} {
			want[o.Name+"@"+o.ResourceVersion] = o
		}
		seen := func(tag string, objs ...*corev1.ConfigMap) {
			mu.Lock()
			defer mu.Unlock()
			s := tag
			for _, o := range objs {
				s += " " + o.Name + "@" + o.ResourceVersion
				if !apiequality.Semantic.DeepEqual(o, want[o.Name+"@"+o.ResourceVersion]) {
					bad++
				}
			}
			log = append(log, s)
		}
		inf.AddEventHandler(HandlerFuncs[*corev1.ConfigMap]{
			AddFunc:    func(o *corev1.ConfigMap, _ bool) { seen("add", o) },
			UpdateFunc: func(old, o *corev1.ConfigMap) { seen("update", old, o) },
			DeleteFunc: func(o *corev1.ConfigMap, _ bool) { seen("delete", o) },
		}, HandlerOptions{})
		stop := start(t, inf)
		defer stop()
		if err := inf.WaitForSync(t.Context()); err != nil {
			t.Fatal(err)
		}
		if !isZipped(t, storedRaw(t, inf.store, Key{"ns", "a"})) {
			t.Fatal("the listed ConfigMap is not stored compressed")
		}
		w.Modify(a2)
		w.Add(c3)
		w.Delete(c3)
		synctest.Wait()
		if got, _ := inf.Lister().GetKey(Key{"ns", "a"}); !apiequality.Semantic.DeepEqual(got, a2) {
			t.Fatal("Get after an update returned another object")
		}
		// A relist (the watch expired): the unchanged object keeps its
		// state, what vanished is deleted.
		e := errEvent(gone())
		w.Action(e.Type, e.Object)
		time.Sleep(time.Minute) // past any backoff
		synctest.Wait()
		if !isZipped(t, storedRaw(t, inf.store, Key{"ns", "a"})) {
			t.Fatal("the relisted ConfigMap is not stored compressed")
		}
		if got, _ := inf.Lister().GetKey(Key{"ns", "a"}); !apiequality.Semantic.DeepEqual(got, a2) {
			t.Fatal("Get after the relist returned another object")
		}
		eq(t, "cache", contents(inf), []string{"ns/a@11", "ns/d@21"})
		mu.Lock()
		defer mu.Unlock()
		eq(t, "events", sorted(log), []string{"add a@1", "add b@2", "add c@12", "add d@21", "delete b@2", "delete c@12", "update a@1 a@11", "update a@11 a@11"})
		if bad != 0 {
			t.Fatalf("%d objects handed to handlers differ from those stored", bad)
		}
	})
}

// zippedCM returns a compressed stored encoding of a ConfigMap of 4 KiB.
func zippedCM(t testing.TB) []byte {
	r := rand.New(rand.NewPCG(14, 14))
	c := dataCM("ns", "a", alnumText(r, 4<<10))
	raw := must(c.Marshal())
	z := zippers.Get().(*zipper)
	defer z.release()
	out, ok := z.squeeze(raw)
	if !ok {
		t.Fatal("a ConfigMap of 4 KiB of letters and digits was not compressed")
	}
	return bytes.Clone(out)
}

// compressed returns b compressed as the cache compresses.
func compressed(t *testing.T, b []byte) []byte {
	enc, _ := coders()
	if enc == nil {
		t.Fatal("no encoder")
	}
	return enc.EncodeAll(b, nil)
}

func TestCorruptCompressedEncodingsAreTypedErrors(t *testing.T) {
	p := newPacker[*corev1.ConfigMap]()
	good := zippedCM(t)
	if got, err := p.decode(good); err != nil || len(got.Data) != 1 {
		t.Fatalf("the intact encoding: %v, %d values", err, len(got.Data))
	}
	_, _, _, rest, _ := wire.Field(good)
	head := good[:len(good)-len(rest)]
	_, _, val, _, _ := wire.Field(rest)
	n, i := binary.Uvarint(val)
	field := func(content []byte) []byte {
		return wire.AppendBytes(bytes.Clone(head), zipField, content)
	}
	withLength := func(m uint64) []byte {
		return field(append(binary.AppendUvarint(nil, m), val[i:]...))
	}
	flipped := bytes.Clone(val)
	for j := i; j < len(flipped); j += 7 {
		flipped[j] ^= 0x5a
	}
	cases := map[string][]byte{
		"compressed frame cut short":             field(val[:len(val)/2]),
		"length longer than the stream":          withLength(n + 1),
		"length shorter than the stream":         withLength(n - 1),
		"length beyond any inflation":            withLength(uint64(len(val)) * 2000),
		"length of 4 GiB":                        withLength(1 << 32),
		"no length":                              field(nil),
		"length varint cut short":                field([]byte{0x80}),
		"bytes flipped in the stream":            field(flipped),
		"field after the compressed one":         append(bytes.Clone(good), 0x08, 0x01),
		"compressed field cut short":             good[:len(good)-3],
		"inflated rest is not protobuf":          field(append(binary.AppendUvarint(nil, 3), compressed(t, []byte{0xff, 0xff, 0xff})...)),
		"not protobuf at all after the metadata": append(bytes.Clone(head), 0xff, 0xff, 0xff),
	}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			obj, err := p.decode(raw)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, errCorruptEntry) {
				t.Fatalf("error %v does not wrap errCorruptEntry", err)
			}
			var ce *corruptError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T is not a *corruptError", err)
			}
			if obj == nil || obj.Name != "a" || obj.Namespace != "ns" {
				t.Fatalf("the metadata was not decoded: %v", obj)
			}
		})
	}
}

func FuzzDecodeStoredEncoding(f *testing.F) {
	f.Add(zippedCM(f))
	f.Add(must(dataCM("ns", "a", "small").Marshal()))
	f.Add(must(dataCM("ns", "a", configText(rand.New(rand.NewPCG(1, 1)), 3<<10)).Marshal()))
	f.Add(must(shapePod(1, false).Marshal()))
	p := newPacker[*corev1.ConfigMap]()
	pods := newPacker[*corev1.Pod]()
	f.Fuzz(func(t *testing.T, raw []byte) {
		if _, err := p.decode(raw); err != nil && !errors.Is(err, errCorruptEntry) {
			t.Fatalf("untyped error %v", err)
		}
		if _, err := pods.decode(raw); err != nil && !errors.Is(err, errCorruptEntry) {
			t.Fatalf("untyped error %v", err)
		}
		// The compressed form of a plain encoding decodes as it does.
		if _, own, err := plainOf(raw); err != nil || own {
			return
		}
		want, werr := p.decode(raw)
		if werr != nil {
			return
		}
		z := zippers.Get().(*zipper)
		out, ok := z.squeeze(raw)
		out = bytes.Clone(out)
		z.release()
		if !ok {
			return
		}
		if got, err := p.decode(out); err != nil || !apiequality.Semantic.DeepEqual(got, want) {
			t.Fatalf("compressed form decodes to %v (%v), plain to %v", got, err, want)
		}
	})
}

func TestCompressedEncodingsSurviveChunkMovesUnderConcurrentReads(t *testing.T) {
	for _, plain := range []bool{false, true} {
		t.Run(map[bool]string{false: "compressed", true: "plain"}[plain], func(t *testing.T) {
			const n = 150
			pack := newPacker[*corev1.ConfigMap]()
			pack.plainOnly = plain
			s := newStore(map[string]IndexFunc[*corev1.ConfigMap]{"app": byApp}, nil, pack)
			version := func(i, rv int) *corev1.ConfigMap {
				r := rand.New(rand.NewPCG(uint64(i), uint64(rv)))
				c := churnCM(i, rv)
				c.Data["text"] = configText(r, 2<<10+r.IntN(6<<10))
				c.Data["sum"] = strconv.Itoa(len(c.Data["text"]))
				return c
			}
			ok := func(o *corev1.ConfigMap) bool {
				return whole(o) && o.Data["sum"] == strconv.Itoa(len(o.Data["text"]))
			}
			items := make([]*corev1.ConfigMap, n)
			for i := range items {
				items[i] = version(i, i+1)
			}
			s.replace(items, true)
			if z := isZipped(t, storedRaw(t, s, KeyOf(items[0]))); z == plain {
				t.Fatalf("stored compressed %t", z)
			}
			var stop atomic.Bool
			var bad atomic.Int64
			var wg sync.WaitGroup
			for g := range 3 {
				wg.Go(func() {
					r := rand.New(rand.NewPCG(uint64(g), 2))
					for !stop.Load() {
						i := r.IntN(n)
						if o, found := s.Get(Key{"ns-" + strconv.Itoa(i%7), fmt.Sprintf("obj-%04d", i)}); found && !ok(o) {
							bad.Add(1)
						}
						if g == 0 {
							for _, o := range s.List(labels.SelectorFromSet(labels.Set{"app": "a1"})) {
								if !ok(o) || o.Labels["app"] != "a1" {
									bad.Add(1)
								}
							}
						}
					}
				})
			}
			r := rand.New(rand.NewPCG(15, 15))
			rv := n
			for range 20 * n {
				rv++
				s.put(version(r.IntN(n), rv))
			}
			stop.Store(true)
			wg.Wait()
			if bad.Load() != 0 {
				t.Fatalf("%d reads decoded an object that was not whole", bad.Load())
			}
			if s.pack.ar.gone == 0 {
				t.Fatal("no chunk was let go while readers read")
			}
			arenaState(t, s)
			for o := range s.All(nil) {
				if !ok(o) {
					t.Fatalf("%s decoded wrong after moves", KeyOf(o))
				}
			}
		})
	}
}

// A compressed Secret's values view the buffer its read decompressed:
// each read has its own, so changing a value's bytes, or appending to
// it, reaches neither the cache nor another read.
func TestCompressedBytesValuesAreEachReadsOwn(t *testing.T) {
	st := newStore[*corev1.Secret](nil, nil, newPacker[*corev1.Secret]())
	r := rand.New(rand.NewPCG(3, 3))
	in := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s", ResourceVersion: "1"},
		Data:       map[string][]byte{"a": []byte(alnumText(r, 3<<10)), "b": []byte(alnumText(r, 3<<10))},
	}
	st.put(in)
	k := Key{Namespace: "ns", Name: "s"}
	if !isZipped(t, storedRaw(t, st, k)) {
		t.Fatal("the Secret is not stored compressed")
	}
	one, _ := st.Get(k)
	two, _ := st.Get(k)
	if &one.Data["a"][0] == &two.Data["a"][0] {
		t.Fatal("two reads share a value's bytes")
	}
	a := one.Data["a"]
	a[0] ^= 0xff
	one.Data["a"] = append(a, "-more"...)
	if !bytes.Equal(one.Data["b"], in.Data["b"]) {
		t.Fatal("an append to one value changed the next")
	}
	three, _ := st.Get(k)
	for _, got := range []*corev1.Secret{two, three} {
		if !bytes.Equal(got.Data["a"], in.Data["a"]) || !bytes.Equal(got.Data["b"], in.Data["b"]) {
			t.Fatal("a change to one read's value reached another read or the cache")
		}
	}
}

// Encodings larger than the compressor's window (several frames' blocks,
// matches that cannot reach back to the start) decompress whole.
func TestCompressedEncodingsOfEverySizeReadBack(t *testing.T) {
	p := newPacker[*corev1.ConfigMap]()
	for _, n := range []int{3 << 10, 900 << 10, zipWindow, zipWindow + 1, 3 * zipWindow} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			c := dataCM("ns", "a", configText(rand.New(rand.NewPCG(1, uint64(n))), n))
			raw := must(c.Marshal())
			z := zippers.Get().(*zipper)
			defer z.release()
			out, ok := z.squeeze(raw)
			if !ok {
				t.Fatal("configuration text was not compressed")
			}
			got, err := p.decode(out)
			if err != nil || !apiequality.Semantic.DeepEqual(got, c) {
				t.Fatalf("read back %d bytes of data (%v), want %d", len(got.Data["file-0.conf"]), err, n)
			}
		})
	}
}
