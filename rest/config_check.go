package rest

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ConfigError reports a Config that cannot be used. Field names the offending
// Config field ("Host", "TLS.CAData", …) and Reason says what is wrong. The
// error never contains a secret value; Err, when set, is the underlying cause
// (a file-system error, for example) and is likewise free of secrets.
type ConfigError struct {
	Field  string
	Reason string
	Err    error
}

func (e *ConfigError) Error() string {
	msg := "rest: invalid config: " + e.Field + ": " + e.Reason
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *ConfigError) Unwrap() error { return e.Err }

func configErr(field, reason string) *ConfigError {
	return &ConfigError{Field: field, Reason: reason}
}

// ErrConflictingAuth is wrapped by the *ConfigError of a Config that sets
// more than one of BearerToken, BearerTokenFile, Username/Password and
// Auth: each is a complete way to authenticate, and silently preferring one
// would hide a mistake.
var ErrConflictingAuth = errors.New("more than one credential set")

// credentials returns the names of the credential fields c sets, in a fixed
// order.
func (c *Config) credentials() []string {
	var set []string
	if c.BearerToken != "" {
		set = append(set, "BearerToken")
	}
	if c.BearerTokenFile != "" {
		set = append(set, "BearerTokenFile")
	}
	if c.Username != "" || c.Password != "" {
		set = append(set, "Username/Password")
	}
	if c.Auth != nil {
		set = append(set, "Auth")
	}
	return set
}

// Validate reports the first problem that would make NewClient refuse c, as a
// *ConfigError, or nil. It does not read files.
func (c *Config) Validate() error {
	_, err := c.validate()
	return err
}

// validate checks c and returns the parsed base URL.
func (c *Config) validate() (*url.URL, error) {
	if c == nil {
		return nil, configErr("Config", "must not be nil")
	}
	u, err := parseHost(c.Host)
	if err != nil {
		return nil, err
	}
	if set := c.credentials(); len(set) > 1 {
		return nil, &ConfigError{Field: set[1], Reason: "cannot be combined with " + set[0], Err: ErrConflictingAuth}
	}
	plain := u.Scheme == "http"
	if plain && !c.AllowInsecureAuth {
		switch {
		case c.Auth != nil:
			return nil, configErr("Auth", "refusing to send credentials over plain http (set AllowInsecureAuth to permit it)")
		case c.BearerToken != "" || c.BearerTokenFile != "":
			return nil, configErr("BearerToken", "refusing to send a bearer token over plain http (set AllowInsecureAuth to permit it)")
		case c.Username != "" || c.Password != "":
			return nil, configErr("Username", "refusing to send basic-auth credentials over plain http (set AllowInsecureAuth to permit it)")
		}
	}
	if c.ProxyURL != nil {
		if c.Proxy != nil {
			return nil, configErr("ProxyURL", "cannot be combined with Proxy")
		}
		switch c.ProxyURL.Scheme {
		case "http", "https", "socks5":
		default:
			return nil, configErr("ProxyURL", "scheme must be http, https or socks5")
		}
		if c.ProxyURL.Host == "" {
			return nil, configErr("ProxyURL", "has no host")
		}
	}
	if c.Password != "" && c.Username == "" {
		return nil, configErr("Password", "set without Username")
	}
	t := &c.TLS
	hasCA := t.CAFile != "" || len(t.CAData) > 0
	if t.Insecure && hasCA {
		return nil, configErr("TLS.Insecure", "cannot be combined with a CA (TLS.CAFile/TLS.CAData): either verify the server or do not")
	}
	hasCert := t.CertFile != "" || len(t.CertData) > 0
	hasKey := t.KeyFile != "" || len(t.KeyData) > 0
	if hasCert != hasKey && t.ClientCertificates == nil {
		if hasCert {
			return nil, configErr("TLS.KeyData", "client certificate given without a key")
		}
		return nil, configErr("TLS.CertData", "client key given without a certificate")
	}
	if plain && (hasCA || hasCert || hasKey || t.Insecure || t.ServerName != "" || t.ClientCertificates != nil) {
		return nil, configErr("TLS", "TLS settings given for a plain http Host")
	}
	if c.Impersonate.UserName == "" && (c.Impersonate.UID != "" || len(c.Impersonate.Groups) > 0 || len(c.Impersonate.Extra) > 0) {
		return nil, configErr("Impersonate.UserName", "must be set when impersonating a UID, groups or extra fields")
	}
	for k := range c.Impersonate.Extra {
		if k == "" {
			return nil, configErr("Impersonate.Extra", "empty key")
		}
	}
	if strings.ContainsAny(c.UserAgent, "\r\n") {
		return nil, configErr("UserAgent", "contains a line break")
	}
	switch {
	case c.Timeout < 0:
		return nil, configErr("Timeout", "negative")
	case c.HealthPingInterval < 0:
		return nil, configErr("HealthPingInterval", "negative")
	case c.PingTimeout < 0:
		return nil, configErr("PingTimeout", "negative")
	case c.Limits.MaxFrameBytes < 0:
		return nil, configErr("MaxFrameBytes", "negative")
	case c.Limits.MaxRetryAfter < 0:
		return nil, configErr("MaxRetryAfter", "negative")
	case c.Limits.MaxRetryWait < 0:
		return nil, configErr("MaxRetryWait", "negative")
	case c.Limits.MaxResponseBytes < 0:
		return nil, configErr("MaxResponseBytes", "negative")
	}
	if c.ContentType < ContentTypeAuto || c.ContentType > ContentTypeProtobuf {
		return nil, configErr("ContentType", fmt.Sprintf("unknown value %d", int(c.ContentType)))
	}
	return u, nil
}

// parseHost turns Config.Host into a base URL: scheme http or https (https
// when absent), a host, an optional path prefix, no user info, query or
// fragment.
func parseHost(host string) (*url.URL, error) {
	if host == "" {
		return nil, configErr("Host", "must be set")
	}
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	u, err := url.Parse(host)
	if err != nil {
		// url.Parse errors quote the input, which may hold user info: keep
		// only a fixed reason.
		return nil, configErr("Host", "not a valid URL")
	}
	if u.User != nil {
		return nil, configErr("Host", "must not contain user info; use Username/Password or BearerToken")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, configErr("Host", fmt.Sprintf("scheme %q is not http or https", u.Scheme))
	}
	if u.Host == "" {
		return nil, configErr("Host", "has no host name")
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return nil, configErr("Host", "must not contain a query or fragment")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}
