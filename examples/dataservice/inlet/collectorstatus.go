package inlet

import (
	"context"
	"time"

	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/collect"
	"github.com/fnapi/fnapi/registry"
)

// registerCollectorStatus adds collector-status (API 1.2; any token, every role from read-only)
// to reg: the flow collector's own figures, or enabled false when the service collects no flows,
// and the capture probe's when it runs.
func (c *Component) registerCollectorStatus(reg *registry.Registry) error {
	return registry.Implement(reg, api.CollectorStatus, func(ctx context.Context, _ decl.None) (api.CollectorStatusResult, error) {
		res := api.CollectorStatusResult{Listen: []api.CollectorSocket{}, Exporters: []api.ExporterStatus{}}
		if c.flows != nil {
			res = apiCollectorStatus(c.flows.Status(time.Now()))
		}
		res.SNMP = c.snmpStatus()
		if c.capture != nil {
			res.Capture = c.capture.status()
		}
		if c.deps.Queue != nil {
			res.Queue = c.deps.Queue(ctx)
		}
		if c.deps.BGP != nil {
			res.BGP = c.deps.BGP()
		}
		return res, nil
	}, registry.Requires(authapi.RoleReadOnly), registry.ReadOnly())
}

// apiCollectorStatus returns st as collector-status answers it.
func apiCollectorStatus(st collect.Status) api.CollectorStatusResult {
	out := api.CollectorStatusResult{Enabled: st.Enabled, MaxExporters: st.MaxExporters,
		Listen:    make([]api.CollectorSocket, len(st.Listen)),
		Exporters: make([]api.ExporterStatus, len(st.Exporters)),
		Totals:    api.CollectorTotals(st.Totals)}
	for i, s := range st.Listen {
		out.Listen[i] = api.CollectorSocket(s)
	}
	for i, e := range st.Exporters {
		out.Exporters[i] = api.ExporterStatus(e)
	}
	return out
}
