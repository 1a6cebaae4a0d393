package fake_test

import (
	"net/http"
	"slices"

	"github.com/kubego/kubego/rest"
)

// celLibraryCRD is the CelLib CRD, whose rules call Kubernetes' format
// and semver CEL libraries. hostMessage and idRule are two of its
// expressions.
func celLibraryCRD(hostMessage, idRule string) map[string]any {
	str := func(maxLength int64, rs ...map[string]any) map[string]any {
		return map[string]any{"type": "string", "maxLength": maxLength, "x-kubernetes-validations": rules(rs...)}
	}
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "cellibs." + widgetGroup},
		"spec": map[string]any{
			"group": widgetGroup, "scope": "Namespaced",
			"names": map[string]any{"plural": "cellibs", "singular": "cellib", "kind": "CelLib", "listKind": "CelLibList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"spec": map[string]any{
							"type": "object",
							"x-kubernetes-validations": rules(
								map[string]any{"rule": "!has(self.minVersion) || !has(self.maxVersion) || semver(self.minVersion).compareTo(semver(self.maxVersion)) <= 0", "message": "minVersion is at most maxVersion"},
							),
							"properties": map[string]any{
								"host": str(63, map[string]any{
									"rule":              "!format.dns1123Label().validate(self).hasValue()",
									"messageExpression": hostMessage,
								}),
								"id": str(64, map[string]any{"rule": idRule, "message": "id is a UUID"}),
								"link": str(256, map[string]any{
									"rule":              "!format.uri().validate(self).hasValue()",
									"messageExpression": "'link: ' + format.uri().validate(self).value()[0]",
								}),
								"version": str(64,
									map[string]any{"rule": "isSemver(self, true)", "message": "version is a semantic version"},
									map[string]any{"rule": "!isSemver(self, true) || semver(self, true).isGreaterThan(semver('1.0.0'))", "messageExpression": "'version ' + self + ' is not above 1.0.0'"},
								),
								"minVersion": str(64),
								"maxVersion": str(64),
								"release":    str(64, map[string]any{"rule": "semver(self).major() == 2 && semver(self).minor() >= 1 && semver(self).patch() < 10", "message": "release is 2.1.0 to 2.x.9"}),
							},
						},
					},
				}},
			}},
		},
	}
	return crd
}

// The estimated cost of a list of unknown size (what validate returns)
// refuses the definition on both servers, with the same words.
const celLibraryTooExpensive = `CustomResourceDefinition.apiextensions.k8s.io "cellibs.conformance.kubego.dev" is invalid: [` +
	`spec.validation.openAPIV3Schema.properties[spec].properties[host].x-kubernetes-validations[0].messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared), ` +
	`spec.validation.openAPIV3Schema.properties[spec].properties[id].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared), ` +
	`spec.validation.openAPIV3Schema.properties[spec].properties[id].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema, ` +
	`spec.validation.openAPIV3Schema.properties[spec].properties[host].x-kubernetes-validations[0].messageExpression: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema, ` +
	`spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)]`

// celLibraryThings serves the CelLib CRD, after checking that its too
// expensive variant is refused.
func (e *env) celLibraryThings() func(verb string) *rest.Request {
	e.Helper()
	expensive := celLibraryCRD("format.dns1123Label().validate(self).value().join('; ')", "format.named('uuid').value().validate(self) == optional.none()")
	err := e.c.Post().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Body(expensive).Do(e.ctx).Error()
	if err == nil || err.Error() != celLibraryTooExpensive {
		e.Errorf("too expensive definition: got\n%v\nwant\n%s", err, celLibraryTooExpensive)
	}
	crd := celLibraryCRD("format.dns1123Label().validate(self).value()[0]", "!format.named('uuid').value().validate(self).hasValue()")
	return e.serveCRD(crd, "cellibs")
}

// celFormatAndSemverRules writes objects the format and semver rules
// accept and refuse; the causes of each refusal must be exactly
// kube-apiserver's.
func celFormatAndSemverRules(e *env) {
	req := e.celLibraryThings()
	good := map[string]any{
		"host": "web-1", "id": "123e4567-e89b-12d3-a456-426614174000", "link": "https://example.com/a",
		"version": "v1.2", "minVersion": "1.0.0", "maxVersion": "1.0.0+build.2", "release": "2.1.9",
	}
	must(e, req(http.MethodPost).Body(customResource("CelLib", "good", good)).Do(e.ctx).Error())
	with := func(kv ...string) map[string]any {
		out := map[string]any{}
		for k, v := range good {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	tests := []struct {
		name, object string
		spec         map[string]any
		want         []string
	}{
		{"dns1123Label messages", "bad-host", with("host", "Web_1"), []string{
			`spec.host: Invalid value: "Web_1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
		}},
		{"dns1123Label with dots", "dotted-host", with("host", "a.b"), []string{`spec.host: Invalid value: "a.b": must not contain dots`}},
		{"uuid by name", "bad-id", with("id", "not-a-uuid"), []string{`spec.id: Invalid value: "not-a-uuid": id is a UUID`}},
		{"uri error", "bad-link", with("link", "relative/path"), []string{`spec.link: Invalid value: "relative/path": link: parse "relative/path": invalid URI for request`}},
		{"not a semantic version", "bad-version", with("version", "1.x"), []string{`spec.version: Invalid value: "1.x": version is a semantic version`}},
		{"semver comparison", "old-version", with("version", "v01.0"), []string{`spec.version: Invalid value: "v01.0": version v01.0 is not above 1.0.0`}},
		{"semver compareTo", "crossed", with("minVersion", "1.2.0-rc.1", "maxVersion", "1.1.9"), []string{`spec: Invalid value: minVersion is at most maxVersion`}},
		{"major, minor and patch", "old-release", with("release", "2.0.1"), []string{`spec.release: Invalid value: "2.0.1": release is 2.1.0 to 2.x.9`}},
		{"semver of a bad version is an evaluation error", "bad-min", with("minVersion", "1.0"), []string{
			`spec: Invalid value: "object": No Major.Minor.Patch elements found evaluating rule: minVersion is at most maxVersion`,
		}},
		{"several failures", "many", with("host", "-x", "release", "3.0.0"), []string{
			`spec.host: Invalid value: "-x": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
			`spec.release: Invalid value: "3.0.0": release is 2.1.0 to 2.x.9`,
		}},
	}
	for _, tt := range tests {
		causes := celCauses(e, tt.name, req(http.MethodPost).Body(customResource("CelLib", tt.object, tt.spec)))
		slices.Sort(causes)
		if !slices.Equal(causes, tt.want) {
			e.Errorf("%s: causes\n%q\nwant\n%q", tt.name, causes, tt.want)
		}
	}
}
