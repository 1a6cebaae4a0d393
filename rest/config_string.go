package rest

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
)

const redacted = "[redacted]"

// String describes c with every secret (BearerToken, Password, TLS.KeyData)
// replaced by "[redacted]" and other byte data by its length, so a Config is
// safe to print or log.
func (c Config) String() string { return c.describe() }

// GoString is like String; it is used by the %#v verb.
func (c Config) GoString() string { return c.describe() }

// Format makes every fmt verb print the redacted form.
func (c Config) Format(f fmt.State, verb rune) { _, _ = f.Write([]byte(c.describe())) }

// LogValue makes log/slog print the redacted form.
func (c Config) LogValue() slog.Value { return slog.StringValue(c.describe()) }

// MarshalJSON encodes the redacted form as a JSON string: a Config is no
// wire format, and encoding/json (a JSON log, a debug dump) must not carry
// its secrets.
func (c Config) MarshalJSON() ([]byte, error) { return json.Marshal(c.describe()) }

func (c *Config) describe() string {
	var b strings.Builder
	b.WriteString("rest.Config{")
	field := func(name string, v any) {
		if b.Len() > len("rest.Config{") {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: %v", name, v)
	}
	field("Host", fmt.Sprintf("%q", c.Host))
	field("TLS", c.TLS.describe())
	if c.BearerToken != "" {
		field("BearerToken", redacted)
	}
	if c.BearerTokenFile != "" {
		field("BearerTokenFile", fmt.Sprintf("%q", c.BearerTokenFile))
	}
	if c.Username != "" {
		field("Username", fmt.Sprintf("%q", c.Username))
	}
	if c.Password != "" {
		field("Password", redacted)
	}
	if c.Auth != nil {
		field("Auth", fmt.Sprintf("%T", c.Auth))
	}
	if c.AllowInsecureAuth {
		field("AllowInsecureAuth", true)
	}
	if c.Impersonate.UserName != "" {
		field("Impersonate", fmt.Sprintf("{UserName: %q, UID: %q, Groups: %q, Extra: %d keys}",
			c.Impersonate.UserName, c.Impersonate.UID, c.Impersonate.Groups, len(c.Impersonate.Extra)))
	}
	if c.UserAgent != "" {
		field("UserAgent", fmt.Sprintf("%q", c.UserAgent))
	}
	if c.Timeout != 0 {
		field("Timeout", c.Timeout)
	}
	if c.ContentType != ContentTypeAuto {
		field("ContentType", c.ContentType)
	}
	if c.RateLimiter != nil {
		field("RateLimiter", fmt.Sprintf("%T", c.RateLimiter))
	}
	if c.MaxRetries != 0 {
		field("MaxRetries", c.MaxRetries)
	}
	if c.Proxy != nil {
		field("Proxy", "func")
	}
	if c.ProxyURL != nil {
		field("ProxyURL", strconv.Quote(c.ProxyURL.Redacted()))
	}
	if c.WrapTransport != nil {
		field("WrapTransport", "func")
	}
	if c.DisableHTTP2 {
		field("DisableHTTP2", true)
	}
	if c.DisableCompression {
		field("DisableCompression", true)
	}
	if c.HealthPingInterval != 0 {
		field("HealthPingInterval", c.HealthPingInterval)
	}
	if c.PingTimeout != 0 {
		field("PingTimeout", c.PingTimeout)
	}
	if c.Scheme != nil {
		field("Scheme", "custom")
	}
	b.WriteString("}")
	return b.String()
}

// String describes t with TLS.KeyData redacted and other byte data reduced
// to its length.
func (t TLSConfig) String() string { return t.describe() }

// GoString is like String.
func (t TLSConfig) GoString() string { return t.describe() }

// Format makes every fmt verb print the redacted form.
func (t TLSConfig) Format(f fmt.State, verb rune) { _, _ = f.Write([]byte(t.describe())) }

// LogValue makes log/slog print the redacted form.
func (t TLSConfig) LogValue() slog.Value { return slog.StringValue(t.describe()) }

// MarshalJSON encodes the redacted form as a JSON string.
func (t TLSConfig) MarshalJSON() ([]byte, error) { return json.Marshal(t.describe()) }

func (t *TLSConfig) describe() string {
	var parts []string
	if t.Insecure {
		parts = append(parts, "Insecure: true")
	}
	if t.ServerName != "" {
		parts = append(parts, fmt.Sprintf("ServerName: %q", t.ServerName))
	}
	if t.CAFile != "" {
		parts = append(parts, fmt.Sprintf("CAFile: %q", t.CAFile))
	}
	if len(t.CAData) > 0 {
		parts = append(parts, fmt.Sprintf("CAData: %d bytes", len(t.CAData)))
	}
	if t.CertFile != "" {
		parts = append(parts, fmt.Sprintf("CertFile: %q", t.CertFile))
	}
	if len(t.CertData) > 0 {
		parts = append(parts, fmt.Sprintf("CertData: %d bytes", len(t.CertData)))
	}
	if t.KeyFile != "" {
		parts = append(parts, fmt.Sprintf("KeyFile: %q", t.KeyFile))
	}
	if len(t.KeyData) > 0 {
		parts = append(parts, "KeyData: "+redacted)
	}
	if t.ClientCertificates != nil {
		parts = append(parts, fmt.Sprintf("ClientCertificates: %T", t.ClientCertificates))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// String names the content type.
func (ct ContentType) String() string {
	switch ct {
	case ContentTypeAuto:
		return "Auto"
	case ContentTypeJSON:
		return "JSON"
	case ContentTypeProtobuf:
		return "Protobuf"
	}
	return fmt.Sprintf("ContentType(%d)", int(ct))
}
