// Package version parses and orders API versions of the form MAJOR.MINOR.
//
// An API version names the set of functions a server offers and their arguments. A minor step
// (1.0 to 1.1) may only add functions or optional arguments; a major step (1.1 to 2.0) may break
// callers. There is no patch component: fixes that change no signature keep the version.
package version
