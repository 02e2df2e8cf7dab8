package targets

import (
	"fmt"
	"io"
	"net/http"

	"github.com/fnapi/fnapi"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// fnapiHandler serves fnapi's built-ins under /api with [fnapi.New]'s defaults, and under
// /observed/api with a per-call log line (zap's production JSON encoder, written to
// [io.Discard]) and Prometheus metrics, to measure what observability costs.
func fnapiHandler() (http.Handler, error) {
	reg := registry.New()
	if err := fnapi.RegisterBuiltins(reg); err != nil {
		return nil, fmt.Errorf("targets: fnapi: %w", err)
	}
	api, err := fnapi.New(reg)
	if err != nil {
		return nil, fmt.Errorf("targets: fnapi: %w", err)
	}
	logger := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()),
		zapcore.AddSync(io.Discard), zapcore.InfoLevel))
	observed, err := fnapi.New(reg, fnapi.WithLogger(logger), fnapi.WithMetrics())
	if err != nil {
		return nil, fmt.Errorf("targets: fnapi: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", api))
	mux.Handle("/observed/api/", http.StripPrefix("/observed/api", observed))
	return mux, nil
}
