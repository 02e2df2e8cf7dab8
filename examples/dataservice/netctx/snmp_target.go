package netctx

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/gosnmp/gosnmp"
)

// Target is an exporter that SNMP names, with how to ask it. Community and the passwords are
// secrets: never logged (gosnmp's logger stays off) and never answered by the service.
type Target struct {
	// Address is the exporter's address, as flows name it; Port its SNMP port (161 when 0).
	Address netip.Addr
	Port    uint16
	// Version is "2c" (with Community) or "3" (with User and its protocols).
	Version   string
	Community string
	// User is the SNMPv3 user; AuthProtocol "md5", "sha", "sha256" or "sha512" (empty: no
	// authentication); PrivProtocol "des", "aes" or "aes256" (empty: no privacy).
	User, AuthProtocol, AuthPassword, PrivProtocol, PrivPassword string
}

// Check returns why t cannot be polled, or nil.
func (t *Target) Check() error {
	if !t.Address.IsValid() {
		return fmt.Errorf("address missing")
	}
	switch t.Version {
	case "2c":
		if t.Community == "" {
			return fmt.Errorf("version 2c needs a community")
		}
	case "3":
		if t.User == "" {
			return fmt.Errorf("version 3 needs a user")
		}
		if _, err := authProtocol(t.AuthProtocol); err != nil {
			return err
		}
		if _, err := privProtocol(t.PrivProtocol); err != nil {
			return err
		}
		if t.AuthProtocol == "" && t.PrivProtocol != "" {
			return fmt.Errorf("privacy needs authentication")
		}
		if t.AuthProtocol != "" && len(t.AuthPassword) < 8 || t.PrivProtocol != "" && len(t.PrivPassword) < 8 {
			return fmt.Errorf("SNMPv3 passwords have at least 8 characters")
		}
	default:
		return fmt.Errorf("version %q: want \"2c\" or \"3\"", t.Version)
	}
	return nil
}

func authProtocol(s string) (gosnmp.SnmpV3AuthProtocol, error) {
	switch strings.ToLower(s) {
	case "":
		return gosnmp.NoAuth, nil
	case "md5":
		return gosnmp.MD5, nil
	case "sha":
		return gosnmp.SHA, nil
	case "sha256":
		return gosnmp.SHA256, nil
	case "sha512":
		return gosnmp.SHA512, nil
	}
	return 0, fmt.Errorf("auth protocol %q: want md5, sha, sha256 or sha512", s)
}

func privProtocol(s string) (gosnmp.SnmpV3PrivProtocol, error) {
	switch strings.ToLower(s) {
	case "":
		return gosnmp.NoPriv, nil
	case "des":
		return gosnmp.DES, nil
	case "aes":
		return gosnmp.AES, nil
	case "aes256":
		return gosnmp.AES256, nil
	}
	return 0, fmt.Errorf("privacy protocol %q: want des, aes or aes256", s)
}
