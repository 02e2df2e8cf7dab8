package capture

import "github.com/fnapi/fnapi/examples/dataservice/records"

// FoldPath returns path p (a request target without its query string) as the probe keeps it
// in records.HTTP.Path: its ids folded and bytes outside printable ASCII percent-encoded (package
// doc, "HTTP"), cut at records.MaxPathLen. The flow collector folds the URLs exporters send
// with it, so that one path reads the same from the probe and from a vendor's flows.
func FoldPath(p []byte) string {
	var buf [records.MaxPathLen]byte
	return string(foldPath(buf[:0], p))
}
