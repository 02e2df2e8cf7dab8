//go:build unix

package main

import "syscall"

// privateUmask makes every file and directory the process creates from now on private to its
// user (0600, 0700): the stores' files, their journals and the certificate.
func privateUmask() { syscall.Umask(0o077) }
