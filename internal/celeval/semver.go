package celeval

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// semverType is Kubernetes' kubernetes.Semver.
var semverType = cel.ObjectType("kubernetes.Semver")

// semver is a semantic version (semver.org 2.0.0) as kube-apiserver parses
// it: three numbers of at most 64 bits, pre-release identifiers (compared
// numerically or in ASCII order) and build metadata (ignored when
// comparing).
type semver struct {
	major, minor, patch uint64
	pre                 []preRelease
	build               []string
}

// preRelease is one dot-separated identifier of a pre-release.
type preRelease struct {
	str   string
	num   uint64
	isNum bool
}

func (p preRelease) compare(o preRelease) int {
	switch {
	case p.isNum && o.isNum:
		return cmp3(p.num, o.num)
	case p.isNum:
		return -1
	case o.isNum:
		return 1
	}
	return strings.Compare(p.str, o.str)
}

func cmp3(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compare orders versions by precedence: -1, 0 or 1.
func (v semver) compare(o semver) int {
	if c := cmp3(v.major, o.major); c != 0 {
		return c
	}
	if c := cmp3(v.minor, o.minor); c != 0 {
		return c
	}
	if c := cmp3(v.patch, o.patch); c != 0 {
		return c
	}
	switch {
	case len(v.pre) == 0 && len(o.pre) == 0:
		return 0
	case len(v.pre) == 0:
		return 1
	case len(o.pre) == 0:
		return -1
	}
	for i := 0; i < len(v.pre) && i < len(o.pre); i++ {
		if c := v.pre[i].compare(o.pre[i]); c != 0 {
			return c
		}
	}
	return cmp3(uint64(len(v.pre)), uint64(len(o.pre)))
}

func (v semver) String() string {
	var b strings.Builder
	b.WriteString(strconv.FormatUint(v.major, 10) + "." + strconv.FormatUint(v.minor, 10) + "." + strconv.FormatUint(v.patch, 10))
	for i, p := range v.pre {
		if i == 0 {
			b.WriteByte('-')
		} else {
			b.WriteByte('.')
		}
		if p.isNum {
			b.WriteString(strconv.FormatUint(p.num, 10))
		} else {
			b.WriteString(p.str)
		}
	}
	for i, s := range v.build {
		if i == 0 {
			b.WriteByte('+')
		} else {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// onlyOf reports whether every byte of s passes ok (true for "").
func onlyOf(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isIdentChar is a byte of a pre-release or build identifier:
// [0-9A-Za-z-].
func isIdentChar(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-'
}

func leadingZero(s string) bool { return len(s) > 1 && s[0] == '0' }

// versionNumber parses the major, minor or patch number, with the words
// kube-apiserver's errors use.
func versionNumber(s, which string) (uint64, error) {
	if !onlyOf(s, isDigit) {
		return 0, fmt.Errorf("Invalid character(s) found in %s number %q", which, s)
	}
	if leadingZero(s) {
		return 0, fmt.Errorf("%s number must not contain leading zeroes %q", strings.ToUpper(which[:1])+which[1:], s)
	}
	return strconv.ParseUint(s, 10, 64)
}

// parseSemver parses a strict semantic version, failing with
// kube-apiserver's messages.
func parseSemver(s string) (semver, error) {
	if s == "" {
		return semver{}, errors.New("Version string empty")
	}
	parts := strings.SplitN(s, ".", 3)
	if len(parts) != 3 {
		return semver{}, errors.New("No Major.Minor.Patch elements found")
	}
	var v semver
	var err error
	if v.major, err = versionNumber(parts[0], "major"); err != nil {
		return semver{}, err
	}
	if v.minor, err = versionNumber(parts[1], "minor"); err != nil {
		return semver{}, err
	}
	rest := parts[2]
	var build, pre []string
	if i := strings.IndexByte(rest, '+'); i >= 0 {
		build = strings.Split(rest[i+1:], ".")
		rest = rest[:i]
	}
	if i := strings.IndexByte(rest, '-'); i >= 0 {
		pre = strings.Split(rest[i+1:], ".")
		rest = rest[:i]
	}
	if v.patch, err = versionNumber(rest, "patch"); err != nil {
		return semver{}, err
	}
	for _, p := range pre {
		id, err := parsePreRelease(p)
		if err != nil {
			return semver{}, err
		}
		v.pre = append(v.pre, id)
	}
	for _, b := range build {
		if b == "" {
			return semver{}, errors.New("Build meta data is empty")
		}
		if !onlyOf(b, isIdentChar) {
			return semver{}, fmt.Errorf("Invalid character(s) found in build meta data %q", b)
		}
		v.build = append(v.build, b)
	}
	return v, nil
}

func parsePreRelease(s string) (preRelease, error) {
	switch {
	case s == "":
		return preRelease{}, errors.New("Prerelease is empty")
	case onlyOf(s, isDigit):
		if leadingZero(s) {
			return preRelease{}, fmt.Errorf("Numeric PreRelease version must not contain leading zeroes %q", s)
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return preRelease{}, err
		}
		return preRelease{num: n, isNum: true}, nil
	case onlyOf(s, isIdentChar):
		return preRelease{str: s}, nil
	}
	return preRelease{}, fmt.Errorf("Invalid character(s) found in prerelease %q", s)
}

// parseSemverNormalized parses s after kube-apiserver's normalization: a
// leading "v" dropped, leading zeros of each of the first three
// dot-separated parts dropped, and a missing minor or patch number read as
// 0 (a shortened version may carry no pre-release or build).
func parseSemverNormalized(s string) (semver, error) {
	s = strings.TrimPrefix(s, "v")
	parts := strings.SplitN(s, ".", 3)
	for i, p := range parts {
		if len(p) < 2 {
			continue
		}
		p = strings.TrimLeft(p, "0")
		if p == "" || !isDigit(p[0]) {
			p = "0" + p
		}
		parts[i] = p
	}
	if len(parts) < 3 {
		if strings.ContainsAny(parts[len(parts)-1], "+-") {
			return semver{}, errors.New("short version cannot contain PreRelease/Build meta data")
		}
		for len(parts) < 3 {
			parts = append(parts, "0")
		}
	}
	return parseSemver(strings.Join(parts, "."))
}

// semverValue is a semantic version in an expression.
type semverValue struct{ v semver }

func (v semverValue) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeFor[string]().AssignableTo(t) {
		return v.v.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'Semver' to '%v'", t)
}

func (v semverValue) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case semverType:
		return v
	case types.TypeType:
		return semverType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", semverType, t)
}

// Equal compares by precedence: build metadata does not count.
func (v semverValue) Equal(o ref.Val) ref.Val {
	w, ok := o.(semverValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(o)
	}
	return types.Bool(v.v.compare(w.v) == 0)
}

func (v semverValue) Type() ref.Type { return semverType }
func (v semverValue) Value() any     { return v.v }

// semverFunctions declares Kubernetes' semver library (version 1):
// semver and isSemver (each with an optional normalize argument), major,
// minor, patch, isGreaterThan, isLessThan and compareTo.
func semverFunctions() []cel.EnvOption {
	// parse reads the arguments of semver and isSemver: bad is the
	// error value of arguments of other types, err the parse error.
	parse := func(s, normalize ref.Val) (v semver, bad ref.Val, err error) {
		str, ok := s.(types.String)
		if !ok {
			return semver{}, types.MaybeNoSuchOverloadErr(s), nil
		}
		norm, ok := normalize.(types.Bool)
		if !ok {
			return semver{}, types.MaybeNoSuchOverloadErr(normalize), nil
		}
		if norm {
			v, err = parseSemverNormalized(string(str))
		} else {
			v, err = parseSemver(string(str))
		}
		return v, nil, err
	}
	toSemver := func(s, normalize ref.Val) ref.Val {
		v, bad, err := parse(s, normalize)
		switch {
		case bad != nil:
			return bad
		case err != nil:
			return types.WrapErr(err)
		}
		return semverValue{v}
	}
	isSemver := func(s, normalize ref.Val) ref.Val {
		_, bad, err := parse(s, normalize)
		if bad != nil {
			return bad
		}
		return types.Bool(err == nil)
	}
	number := func(name string, f func(semver) uint64) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("semver_"+name, []*cel.Type{semverType}, cel.IntType, cel.UnaryBinding(func(v ref.Val) ref.Val {
			s, ok := v.(semverValue)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			// A number past the largest int wraps, as it does in
			// kube-apiserver.
			return types.Int(int64(f(s.v)))
		})))
	}
	compare := func(name, id string, out *cel.Type, f func(int) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(id, []*cel.Type{semverType, semverType}, out, cel.BinaryBinding(func(a, b ref.Val) ref.Val {
			x, ok := a.(semverValue)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			y, ok := b.(semverValue)
			if !ok {
				return types.MaybeNoSuchOverloadErr(b)
			}
			return f(x.v.compare(y.v))
		})))
	}
	return []cel.EnvOption{
		cel.Function("semver",
			cel.Overload("string_to_semver", []*cel.Type{cel.StringType}, semverType, cel.UnaryBinding(func(s ref.Val) ref.Val { return toSemver(s, types.False) })),
			cel.Overload("string_bool_to_semver", []*cel.Type{cel.StringType, cel.BoolType}, semverType, cel.BinaryBinding(toSemver))),
		cel.Function("isSemver",
			cel.Overload("is_semver_string", []*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(func(s ref.Val) ref.Val { return isSemver(s, types.False) })),
			cel.Overload("is_semver_string_bool", []*cel.Type{cel.StringType, cel.BoolType}, cel.BoolType, cel.BinaryBinding(isSemver))),
		number("major", func(v semver) uint64 { return v.major }),
		number("minor", func(v semver) uint64 { return v.minor }),
		number("patch", func(v semver) uint64 { return v.patch }),
		compare("isGreaterThan", "semver_is_greater_than", cel.BoolType, func(c int) ref.Val { return types.Bool(c > 0) }),
		compare("isLessThan", "semver_is_less_than", cel.BoolType, func(c int) ref.Val { return types.Bool(c < 0) }),
		compare("compareTo", "semver_compare_to", cel.IntType, func(c int) ref.Val { return types.Int(c) }),
	}
}
