// Command plugin is a test exec credential plugin. It counts its runs in
// $COUNT_FILE and prints a token "real-<n>" valid for $TTL, or fails with
// exit code 3 when $FAIL is set.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	if v := os.Getenv("FAIL"); v != "" {
		fmt.Fprintf(os.Stderr, "refusing %s\n", v)
		os.Exit(3)
	}
	var info struct {
		APIVersion string `json:"apiVersion"`
	}
	if err := json.Unmarshal([]byte(os.Getenv("KUBERNETES_EXEC_INFO")), &info); err != nil {
		fmt.Fprintln(os.Stderr, "bad KUBERNETES_EXEC_INFO")
		os.Exit(2)
	}
	n := 1
	if f := os.Getenv("COUNT_FILE"); f != "" {
		b, _ := os.ReadFile(f)
		n, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		n++
		os.WriteFile(f, []byte(strconv.Itoa(n)), 0o600)
	}
	ttl, err := time.ParseDuration(os.Getenv("TTL"))
	if err != nil {
		ttl = time.Hour
	}
	token := fmt.Sprintf("%s-%d", os.Getenv("TOKEN_PREFIX"), n)
	if os.Getenv("TOKEN_PREFIX") == "" {
		token = fmt.Sprintf("real-%d", n)
	}
	if f := os.Getenv("TOKEN_FILE"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "cannot read token file")
			os.Exit(4)
		}
		token = strings.TrimSpace(string(b))
	}
	json.NewEncoder(os.Stdout).Encode(map[string]any{
		"apiVersion": info.APIVersion,
		"kind":       "ExecCredential",
		"status": map[string]any{
			"token":               token,
			"expirationTimestamp": time.Now().Add(ttl).UTC().Format(time.RFC3339),
		},
	})
}
