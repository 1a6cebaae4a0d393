package informer

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/internal/codec/protodec"
)

// fixtureCM and fixtureSecret have the shapes of the repository's bench
// fixtures (BigConfigMap, Secret): four values of random letters and
// digits, 1–10 KiB in all, spread evenly over the objects.
func fixtureCM(i int) *corev1.ConfigMap {
	r := rand.New(rand.NewPCG(2, uint64(i)))
	n := 1024 + (i*7919)%(9*1024+1)
	data := map[string]string{}
	for k := range 4 {
		data[fmt.Sprintf("file-%d-%s.conf", k, alnumText(r, 6))] = alnumText(r, n/4)
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%06d", i), Namespace: "bench-configmaps", ResourceVersion: fmt.Sprint(100000 + i),
			Labels: map[string]string{"config-" + alnumText(r, 6): alnumText(r, 10)}},
		Data: data,
	}
}

func fixtureSecret(i int) *corev1.Secret {
	r := rand.New(rand.NewPCG(3, uint64(i)))
	n := 1024 + (i*7919)%(9*1024+1)
	data := map[string][]byte{}
	for k := range 4 {
		data[fmt.Sprintf("key-%d-%s", k, alnumText(r, 6))] = []byte(alnumText(r, n/4))
	}
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("secret-%06d", i), Namespace: "bench-secrets", ResourceVersion: fmt.Sprint(100000 + i),
			Labels: map[string]string{"secret-" + alnumText(r, 6): alnumText(r, 10)}},
		Type: corev1.SecretTypeOpaque,
		Data: data,
	}
}

// textCM is fixtureCM with configuration text for data.
func textCM(i int) *corev1.ConfigMap {
	c := fixtureCM(i)
	r := rand.New(rand.NewPCG(4, uint64(i)))
	for k, v := range c.Data {
		c.Data[k] = configText(r, len(v))
	}
	return c
}

// zipShapes are the large objects of the compression benchmarks.
var zipShapes = []struct {
	name string
	raw  func(i int) []byte
}{
	{"configmaps-fixture", func(i int) []byte { return must(fixtureCM(i).Marshal()) }},
	{"secrets-fixture", func(i int) []byte { return must(fixtureSecret(i).Marshal()) }},
	{"configmaps-config-text", func(i int) []byte { return must(textCM(i).Marshal()) }},
}

// BenchmarkCompressedHeap reports the live heap per cached object of
// 5,000 large ConfigMaps and Secrets (bytes/obj), compressed (the
// default) and not, and the bytes of their encodings.
func BenchmarkCompressedHeap(b *testing.B) {
	const n = 5000
	for _, shape := range zipShapes {
		raws := make([][]byte, n)
		size := 0
		for i := range raws {
			raws[i] = shape.raw(i)
			size += len(raws[i])
		}
		for _, plain := range []bool{false, true} {
			b.Run(shape.name+"/"+map[bool]string{false: "compressed", true: "uncompressed"}[plain], func(b *testing.B) {
				var per float64
				for b.Loop() {
					if shape.name == "secrets-fixture" {
						per, _ = heapOf(b, raws, benchDecode[corev1.Secret](new(protodec.Decoder)), Options[*corev1.Secret]{DisableCompression: plain})
					} else {
						per, _ = heapOf(b, raws, benchDecode[corev1.ConfigMap](new(protodec.Decoder)), Options[*corev1.ConfigMap]{DisableCompression: plain})
					}
				}
				b.ReportMetric(per, "bytes/obj")
				b.ReportMetric(per*n/(1<<20), "MiB")
				b.ReportMetric(float64(size)/n, "encoded-bytes/obj")
			})
		}
	}
}

// BenchmarkCompressedGet measures Get by key on 5,000 large ConfigMaps,
// compressed and not, with the p50 and p99 of single calls.
func BenchmarkCompressedGet(b *testing.B) {
	for _, shape := range []struct {
		name string
		cm   func(int) *corev1.ConfigMap
	}{{"fixture", fixtureCM}, {"config-text", textCM}} {
		for _, plain := range []bool{false, true} {
			b.Run(shape.name+"/"+map[bool]string{false: "compressed", true: "uncompressed"}[plain], func(b *testing.B) {
				pack := newPacker[*corev1.ConfigMap]()
				pack.plainOnly = plain
				st := newStore[*corev1.ConfigMap](nil, nil, pack)
				items := make([]*corev1.ConfigMap, 5000)
				for i := range items {
					items[i] = shape.cm(i)
				}
				st.replace(items, true)
				benchGetLatency(b, st)
			})
		}
	}
}

// BenchmarkCompressedStore measures storing one large ConfigMap (an
// update of one of 1,000), compressed and not: the informer's cost per
// received object, short of decoding it.
func BenchmarkCompressedStore(b *testing.B) {
	for _, plain := range []bool{false, true} {
		b.Run(map[bool]string{false: "compressed", true: "uncompressed"}[plain], func(b *testing.B) {
			pack := newPacker[*corev1.ConfigMap]()
			pack.plainOnly = plain
			st := newStore[*corev1.ConfigMap](nil, nil, pack)
			items := make([]*corev1.ConfigMap, 1000)
			for i := range items {
				items[i] = fixtureCM(i)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				o := items[i%len(items)]
				o.ResourceVersion = fmt.Sprint(200000 + i)
				st.put(o)
				i++
			}
		})
	}
}

// BenchmarkZip compares the cache's compressor (zstd, as coders makes
// it) with compress/flate at its fastest level and Huffman-only on the
// data of the large shapes: the size of the compressed rest relative to
// the rest (ratio), and the time to compress and to decompress one
// object.
func BenchmarkZip(b *testing.B) {
	const n = 500
	type codec struct {
		name  string
		zip   func(dst, src []byte) []byte
		unzip func(dst, src []byte) ([]byte, error)
	}
	flateOf := func(name string, level int) codec {
		var out bytes.Buffer
		w, _ := flate.NewWriter(&out, level)
		var src bytes.Reader
		r := flate.NewReader(&src)
		return codec{name: name,
			zip: func(dst, in []byte) []byte {
				out.Reset()
				w.Reset(&out)
				w.Write(in)
				w.Close()
				return append(dst, out.Bytes()...)
			},
			unzip: func(dst, in []byte) ([]byte, error) {
				src.Reset(in)
				r.(flate.Resetter).Reset(&src, nil)
				_, err := io.ReadFull(r, dst[:cap(dst)])
				return dst[:cap(dst)], err
			}}
	}
	enc, dec := coders()
	codecs := []codec{
		{name: "zstd", zip: func(dst, in []byte) []byte { return enc.EncodeAll(in, dst) },
			unzip: func(dst, in []byte) ([]byte, error) { return dec.DecodeAll(in, dst) }},
		flateOf("flate-best-speed", flate.BestSpeed),
		flateOf("flate-huffman-only", flate.HuffmanOnly),
	}
	for _, shape := range zipShapes {
		rests := make([][]byte, n)
		for i := range rests {
			raw := shape.raw(i)
			rests[i] = raw[len(raw)/16:] // near enough the part after the metadata
		}
		for _, c := range codecs {
			zipped := make([][]byte, n)
			plain, comp := 0, 0
			for i, rest := range rests {
				zipped[i] = c.zip(nil, rest)
				plain += len(rest)
				comp += len(zipped[i])
			}
			b.Run(shape.name+"/compress/"+c.name, func(b *testing.B) {
				buf := make([]byte, 0, 16<<10)
				i := 0
				for b.Loop() {
					buf = c.zip(buf[:0], rests[i%n])
					i++
				}
				b.ReportMetric(float64(comp)/float64(plain), "ratio")
			})
			b.Run(shape.name+"/decompress/"+c.name, func(b *testing.B) {
				i := 0
				for b.Loop() {
					out, err := c.unzip(make([]byte, 0, len(rests[i%n])), zipped[i%n])
					if err != nil || len(out) != len(rests[i%n]) {
						b.Fatalf("%d bytes of %d: %v", len(out), len(rests[i%n]), err)
					}
					i++
				}
				b.ReportMetric(float64(comp)/float64(plain), "ratio")
			})
		}
	}
}
