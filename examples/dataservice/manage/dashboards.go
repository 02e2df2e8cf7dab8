package manage

import (
	"context"

	"github.com/fnapi/fnapi/auth"
	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/wire"
)

func (s *service) listDashboards(ctx context.Context) ([]api.DashboardSummary, error) {
	ds, err := s.store.Dashboards(ctx)
	if err != nil {
		return nil, wire.StoreError(err)
	}
	out := make([]api.DashboardSummary, 0, len(ds))
	for _, d := range ds {
		out = append(out, summaryOut(d))
	}
	return out, nil
}

func (s *service) getDashboard(ctx context.Context, in api.IDArgs) (api.Dashboard, error) {
	d, err := s.store.Dashboard(ctx, in.ID)
	if err != nil {
		return api.Dashboard{}, wire.StoreError(err)
	}
	return dashboardOut(d), nil
}

func (s *service) createDashboard(ctx context.Context, in api.CreateDashboardArgs) (api.Dashboard, error) {
	if err := checkTitle("title", in.Title); err != nil {
		return api.Dashboard{}, err
	}
	d, err := s.store.CreateDashboard(ctx, state.Dashboard{Title: in.Title, Description: in.Description, Owner: caller(ctx)})
	if err != nil {
		return api.Dashboard{}, wire.StoreError(err)
	}
	return dashboardOut(d), nil
}

func (s *service) updateDashboard(ctx context.Context, in api.UpdateDashboardArgs) (api.Dashboard, error) {
	if in.Title != nil {
		if err := checkTitle("title", *in.Title); err != nil {
			return api.Dashboard{}, err
		}
	}
	d, err := s.store.UpdateDashboard(ctx, in.ID, func(d *state.Dashboard) error {
		if in.Title != nil {
			d.Title = *in.Title
		}
		if in.Description != nil {
			d.Description = *in.Description
		}
		d.Owner = caller(ctx)
		return nil
	})
	if err != nil {
		return api.Dashboard{}, wire.StoreError(err)
	}
	return dashboardOut(d), nil
}

func (s *service) deleteDashboard(ctx context.Context, in api.IDArgs) (bool, error) {
	if err := s.store.DeleteDashboard(ctx, in.ID); err != nil {
		return false, wire.StoreError(err)
	}
	return true, nil
}

// caller is the user a call's dashboards and widgets count against (state.Dashboard.Owner):
// whoever last wrote them.
func caller(ctx context.Context) string {
	if id := auth.FromContext(ctx); id != nil {
		return id.User
	}
	return ""
}
