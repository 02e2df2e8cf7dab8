package manage

import (
	"context"
	"encoding/json"

	"github.com/fnapi/fnapi/examples/dataservice/api"
	"github.com/fnapi/fnapi/examples/dataservice/state"
	"github.com/fnapi/fnapi/examples/dataservice/wire"
)

func (s *service) createWidget(ctx context.Context, in api.CreateWidgetArgs) (api.Widget, error) {
	if err := checkTitle("title", in.Title); err != nil {
		return api.Widget{}, err
	}
	if err := checkQueries(in.Queries, s.validate); err != nil {
		return api.Widget{}, err
	}
	opts, err := options(in.Options)
	if err != nil {
		return api.Widget{}, err
	}
	w, err := s.store.CreateWidget(ctx, state.Widget{Dashboard: in.Dashboard, Title: in.Title, Kind: in.Kind,
		Queries: in.Queries, Options: opts, Owner: caller(ctx)})
	if err != nil {
		return api.Widget{}, wire.StoreError(err)
	}
	return widgetOut(w), nil
}

func (s *service) updateWidget(ctx context.Context, in api.UpdateWidgetArgs) (api.Widget, error) {
	if in.Title != nil {
		if err := checkTitle("title", *in.Title); err != nil {
			return api.Widget{}, err
		}
	}
	if in.Queries != nil {
		if err := checkQueries(in.Queries, s.validate); err != nil {
			return api.Widget{}, err
		}
	}
	var opts json.RawMessage
	if len(in.Options) > 0 && !isNull(in.Options) {
		var err error
		if opts, err = options(in.Options); err != nil {
			return api.Widget{}, err
		}
	}
	w, err := s.store.UpdateWidget(ctx, in.ID, func(w *state.Widget) error {
		if in.Dashboard != nil {
			w.Dashboard = *in.Dashboard
		}
		if in.Title != nil {
			w.Title = *in.Title
		}
		if in.Kind != nil {
			w.Kind = *in.Kind
		}
		if in.Queries != nil {
			w.Queries = in.Queries
		}
		if opts != nil {
			w.Options = opts
		}
		w.Owner = caller(ctx)
		return nil
	})
	if err != nil {
		return api.Widget{}, wire.StoreError(err)
	}
	return widgetOut(w), nil
}

func (s *service) deleteWidget(ctx context.Context, in api.IDArgs) (bool, error) {
	if err := s.store.DeleteWidget(ctx, in.ID); err != nil {
		return false, wire.StoreError(err)
	}
	return true, nil
}
