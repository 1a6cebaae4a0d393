package faults_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// compact compacts etcd at revision rev through its HTTP/JSON gateway
// (POST /v3/kv/compaction), physically, so no etcd client library is
// needed.
func compact(ctx context.Context, endpoint, rev string) error {
	body, _ := json.Marshal(map[string]any{"revision": rev, "physical": true})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint+"/v3/kv/compaction", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("etcd answered %d: %s", resp.StatusCode, b)
	}
	return nil
}
