package app

import (
	"context"
	"time"

	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/registry"
)

// registerCollectorStatus adds collector-status (API 1.2; any token, every role from read-only)
// to reg: the flow collector's own figures, or enabled false when the service collects no flows,
// and the capture probe's when it runs.
func (a *App) registerCollectorStatus(reg *registry.Registry) error {
	return registry.Implement(reg, api.CollectorStatus, func(context.Context, decl.None) (api.CollectorStatusResult, error) {
		res := api.CollectorStatusResult{Listen: []api.CollectorSocket{}, Exporters: []api.ExporterStatus{}}
		if a.flows != nil {
			res = a.flows.Status(time.Now())
		}
		if a.capture != nil {
			res.Capture = a.capture.status()
		}
		return res, nil
	}, registry.Requires(authapi.RoleReadOnly), registry.ReadOnly())
}
