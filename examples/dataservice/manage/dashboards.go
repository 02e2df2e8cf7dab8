package manage

import (
	"context"

	"github.com/fnapi/fnapi/examples/dataservice/state"
)

type idArgs struct {
	ID string `json:"id" jsonschema:"maxLength=64,description=UUID of the object"`
}

type createDashboardArgs struct {
	Title       string `json:"title" jsonschema:"minLength=1,maxLength=200,description=Title for people; need not be unique"`
	Description string `json:"description,omitempty" jsonschema:"maxLength=4000,description=What the dashboard shows"`
}

type updateDashboardArgs struct {
	ID          string  `json:"id" jsonschema:"maxLength=64,description=UUID of the dashboard"`
	Title       *string `json:"title" jsonschema:"minLength=1,maxLength=200,description=New title; unchanged when left out"`
	Description *string `json:"description" jsonschema:"maxLength=4000,description=New description; unchanged when left out"`
}

func (s *service) listDashboards(ctx context.Context) ([]DashboardSummary, error) {
	ds, err := s.store.Dashboards(ctx)
	if err != nil {
		return nil, storeError(err)
	}
	out := make([]DashboardSummary, 0, len(ds))
	for _, d := range ds {
		out = append(out, summaryOut(d))
	}
	return out, nil
}

func (s *service) getDashboard(ctx context.Context, in idArgs) (Dashboard, error) {
	d, err := s.store.Dashboard(ctx, in.ID)
	if err != nil {
		return Dashboard{}, storeError(err)
	}
	return dashboardOut(d), nil
}

func (s *service) createDashboard(ctx context.Context, in createDashboardArgs) (Dashboard, error) {
	if err := checkTitle("title", in.Title); err != nil {
		return Dashboard{}, err
	}
	d, err := s.store.CreateDashboard(ctx, state.Dashboard{Title: in.Title, Description: in.Description})
	if err != nil {
		return Dashboard{}, storeError(err)
	}
	return dashboardOut(d), nil
}

func (s *service) updateDashboard(ctx context.Context, in updateDashboardArgs) (Dashboard, error) {
	if in.Title != nil {
		if err := checkTitle("title", *in.Title); err != nil {
			return Dashboard{}, err
		}
	}
	d, err := s.store.UpdateDashboard(ctx, in.ID, func(d *state.Dashboard) error {
		if in.Title != nil {
			d.Title = *in.Title
		}
		if in.Description != nil {
			d.Description = *in.Description
		}
		return nil
	})
	if err != nil {
		return Dashboard{}, storeError(err)
	}
	return dashboardOut(d), nil
}

func (s *service) deleteDashboard(ctx context.Context, in idArgs) (bool, error) {
	if err := s.store.DeleteDashboard(ctx, in.ID); err != nil {
		return false, storeError(err)
	}
	return true, nil
}
