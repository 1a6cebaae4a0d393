package celeval

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
)

// libraryCase is an expression over the string variable s ("abc") with
// what kube-apiserver 1.37 answers for it: its value (printed with %v) or
// evaluation error, its runtime cost and its estimated cost.
type libraryCase struct {
	expr, value, err     string
	cost, estMin, estMax uint64
}

// runLibraryCases compiles each expression in the base environment with a
// string variable s, estimates its cost and evaluates it with s = "abc".
func runLibraryCases(t *testing.T, cases []libraryCase) {
	t.Helper()
	base, err := baseEnv()
	if err != nil {
		t.Fatal(err)
	}
	env, err := base.Extend(cel.Variable("s", cel.StringType))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range cases {
		t.Run(tt.expr, func(t *testing.T) {
			ast, iss := env.Compile(tt.expr)
			if iss.Err() != nil {
				t.Fatal(iss.Err())
			}
			est, err := env.EstimateCost(ast, &estimator{})
			if err != nil {
				t.Fatal(err)
			}
			if est.Min != tt.estMin || est.Max != tt.estMax {
				t.Errorf("estimated cost [%d, %d], want [%d, %d]", est.Min, est.Max, tt.estMin, tt.estMax)
			}
			prg, _, err := compileIn(env, tt.expr, "", ast.OutputType(), Options{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := eval(t.Context(), prg, map[string]any{"s": "abc"})
			switch {
			case r.err != nil && r.err.Error() != tt.err:
				t.Errorf("error %q, want %q", r.err, tt.err)
			case r.err == nil && tt.err != "":
				t.Errorf("value %v, want error %q", r.val, tt.err)
			case r.err == nil && fmt.Sprintf("%v", r.val.Value()) != tt.value:
				t.Errorf("value %v, want %s", r.val.Value(), tt.value)
			}
			if r.cost != tt.cost {
				t.Errorf("cost %d, want %d", r.cost, tt.cost)
			}
		})
	}
}

// The values, errors and costs below are kube-apiserver 1.37's for the
// same expressions.

func TestSemverLibraryAnswersAsKubeAPIServer(t *testing.T) {
	runLibraryCases(t, []libraryCase{
		{"semver('1.2.3').major()", "1", "", 2, 2, 2},
		{"semver('1.2.3').minor() == 2 && semver('1.2.3').patch() == 3", "true", "", 6, 3, 6},
		{"isSemver('1.0.0')", "true", "", 1, 1, 1},
		{"isSemver('1.0.0-alpha.1+build.5')", "true", "", 3, 3, 3},
		{"isSemver('v1.0.0')", "false", "", 1, 1, 1},
		{"isSemver('v1.0.0', true)", "true", "", 1, 1, 1},
		{"isSemver('1.0', true)", "true", "", 1, 1, 1},
		{"isSemver('01.01.01', true)", "true", "", 1, 1, 1},
		{"isSemver('01.01.01')", "false", "", 1, 1, 1},
		{"isSemver('1.0')", "false", "", 1, 1, 1},
		{"isSemver('')", "false", "", 0, 0, 0},
		{"isSemver('', true)", "false", "", 0, 0, 0},
		{"isSemver('1.0-rc1', true)", "false", "", 1, 1, 1},
		{"isSemver('1.0.0-')", "false", "", 1, 1, 1},
		{"isSemver('1.0.0+')", "false", "", 1, 1, 1},
		{"isSemver('1.0.0-01')", "false", "", 1, 1, 1},
		{"isSemver('1.0.0-0a')", "true", "", 1, 1, 1},
		{"isSemver('1.0.0+01')", "true", "", 1, 1, 1},
		{"isSemver('1.0.0-a_b')", "false", "", 1, 1, 1},
		{"isSemver('1.0.0.0')", "false", "", 1, 1, 1},
		{"isSemver('18446744073709551616.0.0')", "false", "", 3, 3, 3},
		{"isSemver('1.2.3-alpha..1')", "false", "", 2, 2, 2},
		{"semver('bad')", "", "No Major.Minor.Patch elements found", 1, 1, 1},
		{"semver('')", "", "Version string empty", 0, 0, 0},
		{"semver('1.2')", "", "No Major.Minor.Patch elements found", 1, 1, 1},
		{"semver('a.2.3')", "", "Invalid character(s) found in major number \"a\"", 1, 1, 1},
		{"semver('01.2.3')", "", "Major number must not contain leading zeroes \"01\"", 1, 1, 1},
		{"semver('1.02.3')", "", "Minor number must not contain leading zeroes \"02\"", 1, 1, 1},
		{"semver('1.2.03')", "", "Patch number must not contain leading zeroes \"03\"", 1, 1, 1},
		{"semver('1.2.x')", "", "Invalid character(s) found in patch number \"x\"", 1, 1, 1},
		{"semver('1.2.3-')", "", "Prerelease is empty", 1, 1, 1},
		{"semver('1.2.3-01')", "", "Numeric PreRelease version must not contain leading zeroes \"01\"", 1, 1, 1},
		{"semver('1.2.3-a$')", "", "Invalid character(s) found in prerelease \"a$\"", 1, 1, 1},
		{"semver('1.2.3+')", "", "Build meta data is empty", 1, 1, 1},
		{"semver('1.2.3+a$')", "", "Invalid character(s) found in build meta data \"a$\"", 1, 1, 1},
		{"semver('1.2.3+a..b')", "", "Build meta data is empty", 1, 1, 1},
		{"semver('.1.2')", "", "strconv.ParseUint: parsing \"\": invalid syntax", 1, 1, 1},
		{"semver('1..2')", "", "strconv.ParseUint: parsing \"\": invalid syntax", 1, 1, 1},
		{"semver('1.2.')", "", "strconv.ParseUint: parsing \"\": invalid syntax", 1, 1, 1},
		{"semver('18446744073709551616.0.0')", "", "strconv.ParseUint: parsing \"18446744073709551616\": value out of range", 3, 3, 3},
		{"semver('1.2.3-18446744073709551616')", "", "strconv.ParseUint: parsing \"18446744073709551616\": value out of range", 3, 3, 3},
		{"semver('1.0-rc1', true)", "", "short version cannot contain PreRelease/Build meta data", 1, 1, 1},
		{"semver('', true)", "", "strconv.ParseUint: parsing \"\": invalid syntax", 0, 0, 0},
		{"semver('v', true)", "", "strconv.ParseUint: parsing \"\": invalid syntax", 1, 1, 1},
		{"semver('vv1.0.0', true)", "", "Invalid character(s) found in major number \"0v1\"", 1, 1, 1},
		{"semver('1.0+b', true)", "", "short version cannot contain PreRelease/Build meta data", 1, 1, 1},
		{"semver('00.000.0000', true)", "0.0.0", "", 2, 2, 2},
		{"semver('0a.1.1', true)", "", "Invalid character(s) found in major number \"0a\"", 1, 1, 1},
		{"semver('1.2.3+build', true).patch()", "3", "", 3, 3, 3},
		{"semver('v1', true) == semver('1.0.0')", "true", "", 3, 3, 3},
		{"semver('1.0.0+a') == semver('1.0.0+b')", "true", "", 3, 3, 3},
		{"semver('1.0.0') != semver('1.0.1')", "true", "", 3, 3, 1844674407370955266},
		{"semver('1.0.0-alpha').isLessThan(semver('1.0.0'))", "true", "", 4, 4, 4},
		{"semver('1.0.0-alpha.1').isLessThan(semver('1.0.0-alpha.beta'))", "true", "", 5, 5, 5},
		{"semver('1.0.0-alpha.beta').isLessThan(semver('1.0.0-beta'))", "true", "", 4, 4, 4},
		{"semver('1.0.0-beta.2').isLessThan(semver('1.0.0-beta.11'))", "true", "", 5, 5, 5},
		{"semver('1.0.0-rc.1').isGreaterThan(semver('1.0.0-beta.11'))", "true", "", 4, 4, 4},
		{"semver('1.0.0-alpha').compareTo(semver('1.0.0-alpha.1'))", "-1", "", 5, 5, 5},
		{"semver('2.0.0').compareTo(semver('1.9.9'))", "1", "", 3, 3, 3},
		{"semver('1.2.3').compareTo(semver('1.2.3+x'))", "0", "", 3, 3, 3},
		{"semver('1.0.0-A').isLessThan(semver('1.0.0-a'))", "true", "", 3, 3, 3},
		{"semver('9223372036854775808.0.0').major()", "-9223372036854775808", "", 4, 4, 4},
		{"semver('18446744073709551615.0.0').major()", "-1", "", 4, 4, 4},
		{"type(semver('1.0.0')) == type(semver('2.0.0'))", "true", "", 5, 5, 1844674407370955268},
		{"semver(s) == semver('1.0.0')", "", "No Major.Minor.Patch elements found", 4, 3, 1844674407370955267},
		{"isSemver(s)", "false", "", 2, 1, 1844674407370955265},
		{"isSemver(s, true)", "false", "", 2, 1, 1844674407370955265},
		{"semver('1.0.0-Ä')", "", "Invalid character(s) found in prerelease \"Ä\"", 1, 1, 1},
		{"semver('1.0.0+é')", "", "Invalid character(s) found in build meta data \"é\"", 1, 1, 1},
		{"semver('1.é.0')", "", "Invalid character(s) found in minor number \"é\"", 1, 1, 1},
	})
}

func TestFormatLibraryAnswersAsKubeAPIServer(t *testing.T) {
	runLibraryCases(t, []libraryCase{
		{"format.dns1123Label().validate('my-name')", "<nil>", "", 9, 33, 33},
		{"format.dns1123Label().validate('my-name').hasValue()", "false", "", 10, 34, 34},
		{"format.dns1123Label().validate('My_Name')", "[a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')]", "", 9, 33, 33},
		{"format.dns1123Label().validate('a.b')", "[must not contain dots]", "", 9, 33, 33},
		{"format.dns1123Label().validate('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')", "[must be no more than 63 characters]", "", 65, 257, 257},
		{"format.dns1123Label().validate('')", "[a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')]", "", 9, 1, 1},
		{"format.dns1123Subdomain().validate('apiextensions.k8s.io')", "<nil>", "", 46, 65, 65},
		{"format.dns1123Subdomain().validate('Bad.Domain-')", "[a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]", "", 31, 65, 65},
		{"format.dns1035Label().validate('1abc')", "[a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')]", "", 9, 33, 33},
		{"format.dns1035Label().validate('abc')", "<nil>", "", 9, 33, 33},
		{"format.qualifiedName().validate('apiextensions.k8s.io/v1beta1')", "<nil>", "", 46, 97, 97},
		{"format.qualifiedName().validate('a/b/c')", "[a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')]", "", 16, 33, 33},
		{"format.qualifiedName().validate('-x')", "[name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')]", "", 16, 33, 33},
		{"format.qualifiedName().validate('Bad_/x')", "[prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]", "", 16, 33, 33},
		{"format.dns1123LabelPrefix().validate('my-label-prefix-')", "<nil>", "", 17, 65, 65},
		{"format.dns1123LabelPrefix().validate('ab-')", "<nil>", "", 9, 33, 33},
		{"format.dns1123LabelPrefix().validate('-')", "[a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')]", "", 9, 33, 33},
		{"format.dns1123LabelPrefix().validate('A-')", "<nil>", "", 9, 33, 33},
		{"format.dns1123SubdomainPrefix().validate('mysubdomain.prefix.-')", "<nil>", "", 46, 65, 65},
		{"format.dns1035LabelPrefix().validate('1-')", "<nil>", "", 9, 33, 33},
		{"format.dns1035LabelPrefix().validate('my-label-prefix-')", "<nil>", "", 17, 65, 65},
		{"format.labelValue().validate('my_value.1')", "<nil>", "", 21, 33, 33},
		{"format.labelValue().validate('-bad')", "[a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]", "", 11, 33, 33},
		{"format.labelValue().validate('')", "<nil>", "", 11, 1, 1},
		{"format.uri().validate('http://example.com')", "<nil>", "", 553, 65, 65},
		{"format.uri().validate('example')", "[parse \"example\": invalid URI for request]", "", 277, 33, 33},
		{"format.uri().validate('/abs')", "<nil>", "", 277, 33, 33},
		{"format.uri().validate('http://[::1')", "[parse \"http://[::1\": missing ']' in host]", "", 553, 65, 65},
		{"format.uuid().validate('123e4567-e89b-12d3-a456-426614174000')", "<nil>", "", 73, 129, 129},
		{"format.uuid().validate('123e4567e89b12d3a456426614174000')", "<nil>", "", 73, 129, 129},
		{"format.uuid().validate('not-a-uuid')", "[does not match the UUID format]", "", 37, 33, 33},
		{"format.byte().validate('aGVsbG8=')", "<nil>", "", 22, 33, 33},
		{"format.byte().validate('aGVsbG8')", "[invalid base64]", "", 22, 33, 33},
		{"format.byte().validate('')", "[invalid base64]", "", 22, 1, 1},
		{"format.date().validate('2021-01-01')", "<nil>", "", 37, 33, 33},
		{"format.date().validate('2021-02-30')", "[invalid date]", "", 37, 33, 33},
		{"format.datetime().validate('2021-01-01T00:00:00Z')", "<nil>", "", 55, 65, 65},
		{"format.datetime().validate('2021-01-01 00:00:00')", "[invalid datetime]", "", 37, 65, 65},
		{"format.datetime().validate('2021-01-01T00:00:00.123+02:00')", "<nil>", "", 55, 97, 97},
		{"format.named('uuid').hasValue()", "true", "", 2, 2, 2},
		{"format.named('nope').hasValue()", "false", "", 2, 2, 2},
		{"format.named('dns1123Label').value().validate('a')", "<nil>", "", 10, 34, 34},
		{"format.named('uuid').value() == format.uuid()", "true", "", 4, 4, 10},
		{"format.named('uuid').value() == format.byte()", "false", "", 4, 4, 10},
		{"format.named('') == optional.none()", "true", "", 3, 3, 1844674407370955266},
		{"format.named(s).hasValue()", "false", "", 3, 3, 3},
		{"format.dns1123Label().validate(s)", "<nil>", "", 10, 2, 18446744073709551615},
		{"format.uri().validate(s)", "[parse \"abc\": invalid URI for request]", "", 278, 2, 18446744073709551615},
		{"format.datetime().validate(s)", "[invalid datetime]", "", 20, 2, 18446744073709551615},
		{"format.uuid().validate(s).orValue([]).size() == 1", "true", "", 22, 15, 18446744073709551615},
		{"format.dns1123Label() == format.dns1123Label()", "true", "", 3, 3, 9},
		{"format.named('labelValue').value().validate(s).hasValue()", "false", "", 14, 4, 18446744073709551615},
		{"type(format.uuid())", "kubernetes.NamedFormat", "", 2, 2, 2},
	})
}

// The authorizer library is declared without a value to call it on, as
// in a CRD rule on kube-apiserver: the last cases.
func TestSemverFormatAndAuthorizerMisuseFailsToCompileAsOnKubeAPIServer(t *testing.T) {
	base, err := baseEnv()
	if err != nil {
		t.Fatal(err)
	}
	env, err := base.Extend(cel.Variable("s", cel.StringType))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ expr, firstError string }{
		{"semver('1.0.0') < semver('2.0.0')", "ERROR: <input>:1:17: found no matching overload for '_<_' applied to '(kubernetes.Semver, kubernetes.Semver)'"},
		{"string(semver('1.0.0'))", "ERROR: <input>:1:7: found no matching overload for 'string' applied to '(kubernetes.Semver)'"},
		{"format.nope()", "ERROR: <input>:1:1: undeclared reference to 'format' (in container '')"},
		{"format.named(1)", "ERROR: <input>:1:13: found no matching overload for 'format.named' applied to '(int)'"},
		{"format.uuid().validate(1)", "ERROR: <input>:1:23: found no matching overload for 'validate' applied to 'kubernetes.NamedFormat.(int)'"},
		{"format.validate('x')", "ERROR: <input>:1:1: undeclared reference to 'format' (in container '')"},
		{"authorizer.path('/healthz').check('get').allowed()", "ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')"},
		{"s.name('x')", "ERROR: <input>:1:7: found no matching overload for 'name' applied to 'string.(string)'"},
		{"s.check('get')", "ERROR: <input>:1:8: found no matching overload for 'check' applied to 'string.(string)'"},
		{"s.allowed()", "ERROR: <input>:1:10: found no matching overload for 'allowed' applied to 'string.()'"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			_, iss := env.Compile(tt.expr)
			if iss.Err() == nil {
				t.Fatal("compiled")
			}
			if first, _, _ := strings.Cut(iss.Err().Error(), "\n"); first != tt.firstError {
				t.Errorf("first error %q, want %q", first, tt.firstError)
			}
		})
	}
}
