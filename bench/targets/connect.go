package targets

import (
	"context"
	"net/http"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"
)

// connectProcedure is the echo procedure's path.
const connectProcedure = "/echo.v1.EchoService/Echo"

// connectHandler serves the echo procedure with [structpb.Struct] as request and response, so
// no generated code is needed; connect-go's handlers accept the JSON codec by default.
func connectHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(connectProcedure, connect.NewUnaryHandler(connectProcedure,
		func(_ context.Context, req *connect.Request[structpb.Struct]) (*connect.Response[structpb.Struct], error) {
			return connect.NewResponse(req.Msg), nil
		}))
	return mux
}
