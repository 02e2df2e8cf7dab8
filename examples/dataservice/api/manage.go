package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
)

// LimitReached: the store holds as many objects of a kind as it allows, or the caller holds as
// many followed queries open as it may.
var LimitReached = apierr.Declare("LIMIT-REACHED", http.StatusConflict,
	"The store holds as many objects of a kind as it allows, or the caller holds as many followed queries open as it may.",
	apierr.Attr("name", "what is full: dashboards, widgets, config, follow streams").Typed("string"),
	apierr.Attr("limit", "how many it allows").Typed("integer"),
	apierr.Attr("reason", "for follow streams, what to do before opening another").Typed("string"))

// The dashboard, widget and configuration functions. get-config and set-config describe the
// configuration keys in doc (the server knows them); see the service's docs/api.md.
var (
	ListDashboards = decl.Func[decl.None, []DashboardSummary]("list-dashboards", decl.ReadOnly(),
		decl.Describe("Lists every dashboard, oldest first, without its widgets."))
	GetDashboard = decl.Func[IDArgs, Dashboard]("get-dashboard", decl.ReadOnly(),
		decl.Describe("Answers a dashboard with its widgets."))
	CreateDashboard = decl.Func[CreateDashboardArgs, Dashboard]("create-dashboard", decl.Errors(LimitReached),
		decl.Describe("Creates a dashboard, without widgets, and answers it."))
	UpdateDashboard = decl.Func[UpdateDashboardArgs, Dashboard]("update-dashboard",
		decl.Describe("Changes a dashboard's title or description and answers the dashboard."))
	DeleteDashboard = decl.Func[IDArgs, bool]("delete-dashboard",
		decl.Describe("Deletes a dashboard and its widgets; answers true."))
	CreateWidget = decl.Func[CreateWidgetArgs, Widget]("create-widget", decl.Errors(QuerySyntax, LimitReached),
		decl.Describe("Adds a widget to a dashboard and answers it. Each query must be valid in the query language."))
	UpdateWidget = decl.Func[UpdateWidgetArgs, Widget]("update-widget", decl.Errors(QuerySyntax, LimitReached),
		decl.Describe("Changes a widget, or moves it to another dashboard, and answers it. Arguments left out stay as they are."))
	DeleteWidget = decl.Func[IDArgs, bool]("delete-widget",
		decl.Describe("Deletes a widget; answers true."))
	GetConfig = decl.Func[decl.None, map[string]json.RawMessage]("get-config")
	SetConfig = decl.Func[SetConfigArgs, map[string]json.RawMessage]("set-config")
)

// IDArgs name one dashboard or widget.
type IDArgs struct {
	ID string `json:"id" jsonschema:"maxLength=64,description=UUID of the object"`
}

// CreateDashboardArgs are the arguments of create-dashboard.
type CreateDashboardArgs struct {
	Title       string `json:"title" jsonschema:"minLength=1,maxLength=200,description=Title for people; need not be unique"`
	Description string `json:"description,omitempty" jsonschema:"maxLength=4000,description=What the dashboard shows"`
}

// UpdateDashboardArgs are the arguments of update-dashboard.
type UpdateDashboardArgs struct {
	ID          string  `json:"id" jsonschema:"maxLength=64,description=UUID of the dashboard"`
	Title       *string `json:"title" jsonschema:"minLength=1,maxLength=200,description=New title; unchanged when left out"`
	Description *string `json:"description" jsonschema:"maxLength=4000,description=New description; unchanged when left out"`
}

// CreateWidgetArgs are the arguments of create-widget.
type CreateWidgetArgs struct {
	Dashboard string          `json:"dashboard" jsonschema:"maxLength=64,description=UUID of the dashboard to add the widget to"`
	Title     string          `json:"title" jsonschema:"minLength=1,maxLength=200,description=Title for people"`
	Kind      string          `json:"kind" jsonschema:"enum=number,enum=table,enum=timeseries,enum=bar,enum=pie,description=How the widget displays its queries' results"`
	Queries   []string        `json:"queries" jsonschema:"minItems=1,maxItems=20,description=Query expressions (at most 10000 characters each)\\, in order"`
	Options   json.RawMessage `json:"options,omitempty" jsonschema:"type=object,description=Display settings: a JSON object of at most 16 KiB\\, kept as given"`
}

// UpdateWidgetArgs are the arguments of update-widget.
type UpdateWidgetArgs struct {
	ID        string          `json:"id" jsonschema:"maxLength=64,description=UUID of the widget"`
	Dashboard *string         `json:"dashboard" jsonschema:"maxLength=64,description=UUID of the dashboard to move the widget to"`
	Title     *string         `json:"title" jsonschema:"minLength=1,maxLength=200,description=New title"`
	Kind      *string         `json:"kind" jsonschema:"enum=number,enum=table,enum=timeseries,enum=bar,enum=pie,description=New kind"`
	Queries   []string        `json:"queries,omitempty" jsonschema:"minItems=1,maxItems=20,description=New queries\\, replacing all the old ones"`
	Options   json.RawMessage `json:"options,omitempty" jsonschema:"type=object,description=New display settings\\, replacing all the old ones"`
}

// SetConfigArgs are the arguments of set-config.
type SetConfigArgs struct {
	Values map[string]json.RawMessage `json:"values" jsonschema:"description=Keys and their new values; null resets a key to its default"`
}

// Dashboard is a dashboard as the functions answer it.
type Dashboard struct {
	ID          string    `json:"id" jsonschema:"description=UUID of the dashboard"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	Widgets     []Widget  `json:"widgets" jsonschema:"description=The dashboard's widgets\\, oldest first"`
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated" jsonschema:"description=When the dashboard or one of its widgets last changed"`
}

// DashboardSummary is a dashboard without its widgets, as list-dashboards answers it.
type DashboardSummary struct {
	ID          string    `json:"id" jsonschema:"description=UUID of the dashboard"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"`
}

// Widget is a widget as the functions answer it.
type Widget struct {
	ID        string          `json:"id" jsonschema:"description=UUID of the widget"`
	Dashboard string          `json:"dashboard" jsonschema:"description=UUID of its dashboard"`
	Title     string          `json:"title"`
	Kind      string          `json:"kind" jsonschema:"enum=number,enum=table,enum=timeseries,enum=bar,enum=pie"`
	Queries   []string        `json:"queries" jsonschema:"description=Query expressions\\, in order"`
	Options   json.RawMessage `json:"options" jsonschema:"type=object,description=Display settings\\, as given"`
	Created   time.Time       `json:"created"`
	Updated   time.Time       `json:"updated"`
}
