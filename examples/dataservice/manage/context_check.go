package manage

import "github.com/fnapi/fnapi/examples/dataservice/state"

// CheckContext is the check set-zone and set-application make of the zones and applications a
// change leaves (that they compile: names, networks, rules), for the changes the service
// makes itself (the demo's zones and applications): a state.CheckContext.
func CheckContext(zs []state.Zone, as []state.Application) error {
	_, _, err := compileContext(zs, as)
	return err
}
