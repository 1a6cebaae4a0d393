package auth_test

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/kubego/kubego/auth"
)

func TestExecConfigPrintsNoEnvValues(t *testing.T) {
	cfg := auth.ExecConfig{Command: "aws", APIVersion: auth.ExecAPIV1,
		Env: []auth.EnvVar{{Name: "AWS_SECRET_ACCESS_KEY", Value: "env-SECRET-value"}}}
	var printed []string
	for _, v := range []any{cfg, &cfg, cfg.Env, cfg.Env[0]} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
			printed = append(printed, fmt.Sprintf(verb, v))
		}
	}
	var logs strings.Builder
	slog.New(slog.NewTextHandler(&logs, nil)).Info("exec", "config", cfg, "env", cfg.Env[0])
	printed = append(printed, logs.String())
	for _, s := range printed {
		if strings.Contains(s, "SECRET-value") {
			t.Errorf("an env value is printed: %s", s)
		}
	}
	if s := fmt.Sprintf("%+v", cfg); !strings.Contains(s, "AWS_SECRET_ACCESS_KEY") {
		t.Errorf("the variable's name is not shown: %s", s)
	}
}
