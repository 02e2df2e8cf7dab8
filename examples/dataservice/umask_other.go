//go:build !unix

package main

// privateUmask does nothing where there is no umask: the data directory's ACL decides.
func privateUmask() {}
