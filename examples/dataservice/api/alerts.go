package api

import (
	"encoding/json"
	"time"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
)

// The alert functions (API 1.3): rules that watch the traffic, their alerts and history. Users
// and administrators manage rules; read-only users see them. See the service's docs/alerts.md for the
// webhook's body and signature.
var (
	ListAlertRules = decl.Func[decl.None, []AlertRule]("list-alert-rules", decl.Since("1.3"),
		decl.Describe("Lists every alert rule, oldest first, with the state of each notification channel (a failing channel says why). Secrets are never answered; a webhook's URL (a credential for Slack, Teams or Discord) only to the rule's owner and administrators, others see its host (https://host/…)."))
	CreateAlertRule = decl.Func[CreateAlertRuleArgs, AlertRule]("create-alert-rule", decl.Since("1.3"),
		decl.Errors(QuerySyntax, LimitReached, apierr.InvalidArgument),
		decl.Describe("Creates an alert rule and answers it. The query is one statement whose HAVING is the condition; each group that satisfies it is an alert, pending until it has held for `for`, then firing, and resolved when it no longer holds."))
	UpdateAlertRule = decl.Func[UpdateAlertRuleArgs, AlertRule]("update-alert-rule", decl.Since("1.3"),
		decl.Errors(QuerySyntax, apierr.InvalidArgument, apierr.PermissionDenied),
		decl.Describe("Changes an alert rule: one's own, or any for an administrator (PERMISSION-DENIED otherwise); arguments left out stay as they are. A webhook given without its secret keeps the secret it had."))
	DeleteAlertRule = decl.Func[IDArgs, bool]("delete-alert-rule", decl.Since("1.3"), decl.Errors(apierr.PermissionDenied),
		decl.Describe("Deletes an alert rule (one's own, or any for an administrator), its alerts and its notifications not yet sent; its history stays. Answers true."))
	ListAlerts = decl.Func[ListAlertsArgs, []Alert]("list-alerts", decl.Since("1.3"),
		decl.Describe("Lists the alerts pending or firing now, of the given state or both."))
	AlertHistory = decl.Func[AlertHistoryArgs, []AlertEvent]("alert-history", decl.Since("1.3"),
		decl.Describe("Answers the transitions of alerts (pending, firing, resolved) with the values that caused them, and the routes their bgp channels announced, withdrew or were refused (announced, withdrawn, refused, with the mitigation), newest first: at most 1000."))
	SilenceAlert = decl.Func[SilenceAlertArgs, bool]("silence-alert", decl.Since("1.3"), decl.Errors(apierr.PermissionDenied),
		decl.Describe("Sends no notification for the rule (or for one group of it) until the given time: one's own rule, or any for an administrator; transitions are still recorded. A time in the past lifts the silence. Answers true."))
	AcknowledgeAlert = decl.Func[AcknowledgeAlertArgs, bool]("acknowledge-alert", decl.Since("1.3"),
		decl.Describe("Marks an alert pending or firing as acknowledged: someone is on it. Answers true."))
)

// AlertRule is a rule as answered: never with a secret.
type AlertRule struct {
	ID       string            `json:"id"`
	Name     string            `json:"name"`
	Query    string            `json:"query"`
	Interval string            `json:"interval"`
	For      string            `json:"for"`
	Severity string            `json:"severity"`
	Labels   map[string]string `json:"labels"`
	Notify   []AlertChannel    `json:"notify"`
	// Channels says how each channel fared with its latest notification.
	Channels []AlertChannelState `json:"channels"`
	// Owner is the user who created the rule: they and administrators change it and see its
	// webhooks' URLs; others see each URL's host only ("https://host/…").
	Owner string `json:"owner"`
	// Evaluated is when the rule was last evaluated, and Error why that evaluation failed
	// (empty when it did not): as the node evaluating the rules saw it, absent elsewhere and
	// before the first evaluation.
	Evaluated *time.Time `json:"evaluated,omitempty"`
	Error     string     `json:"error,omitempty"`
	// Warning is what the rule cannot do on the node evaluating the rules, absent when
	// nothing: its bgp channels announce nothing on a node without -bgp.
	Warning string    `json:"warning,omitempty"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

// AlertChannel is where a rule's notifications go: a webhook (HTTPS, signed with the secret)
// or an e-mail address. Answers leave the secret out.
type AlertChannel struct {
	Webhook string `json:"webhook,omitempty" jsonschema:"maxLength=2000,description=An https:// URL that receives each transition as a signed JSON POST"`
	Secret  string `json:"secret,omitempty" jsonschema:"maxLength=200,description=The key of the HMAC-SHA256 signature (Svc-Signature header); never answered"`
	Email   string `json:"email,omitempty" jsonschema:"maxLength=254,description=An e-mail address that receives each transition"`
	// BGP announces each firing group's address to the routers peering with the service
	// (-bgp): "blackhole" (RFC 7999) or "flowspec" (RFC 8955, discard). Administrators only.
	BGP string `json:"bgp,omitempty" jsonschema:"enum=blackhole,enum=flowspec,description=Announce each firing group's server.ip or client.ip to the service's BGP peers: a blackhole route or a flowspec rule; administrators only"`
}

// AlertChannelState is how a channel fared with its latest notification.
type AlertChannelState struct {
	Target string `json:"target"`
	// OK is false while the latest notification is failing or was given up.
	OK       bool   `json:"ok"`
	Attempts int    `json:"attempts"`
	Error    string `json:"error,omitempty"`
}

// CreateAlertRuleArgs are the arguments of create-alert-rule.
type CreateAlertRuleArgs struct {
	Name     string            `json:"name" jsonschema:"minLength=1,maxLength=200,description=Name for people"`
	Query    string            `json:"query" jsonschema:"minLength=1,maxLength=10000,description=One statement of the query language whose HAVING is the condition"`
	Interval string            `json:"interval,omitempty" default:"\"60s\"" jsonschema:"description=How often the rule is evaluated: a duration of at least 10s"`
	For      string            `json:"for,omitempty" default:"\"0s\"" jsonschema:"description=How long a group must satisfy the condition before it fires"`
	Severity string            `json:"severity,omitempty" default:"\"warning\"" jsonschema:"maxLength=40,description=A word such as critical\\, warning or info"`
	Labels   map[string]string `json:"labels,omitempty" jsonschema:"description=Copied into every notification (at most 20)"`
	Notify   []AlertChannel    `json:"notify,omitempty" jsonschema:"maxItems=10,description=Where notifications go"`
}

// UpdateAlertRuleArgs are the arguments of update-alert-rule.
type UpdateAlertRuleArgs struct {
	ID       string            `json:"id" jsonschema:"maxLength=64,description=UUID of the rule"`
	Name     *string           `json:"name" jsonschema:"minLength=1,maxLength=200"`
	Query    *string           `json:"query" jsonschema:"minLength=1,maxLength=10000"`
	Interval *string           `json:"interval"`
	For      *string           `json:"for"`
	Severity *string           `json:"severity" jsonschema:"maxLength=40"`
	Labels   map[string]string `json:"labels,omitempty"`
	Notify   []AlertChannel    `json:"notify,omitempty" jsonschema:"maxItems=10"`
}

// Alert is one group of a rule that satisfies its condition now.
type Alert struct {
	Rule     string          `json:"rule"`
	Name     string          `json:"name"`
	Severity string          `json:"severity"`
	Group    json.RawMessage `json:"group"`
	State    string          `json:"state"`
	Since    time.Time       `json:"since"`
	Values   json.RawMessage `json:"values"`
	// Acknowledged is set by acknowledge-alert.
	Acknowledged bool `json:"acknowledged"`
}

// ListAlertsArgs are the arguments of list-alerts.
type ListAlertsArgs struct {
	State string `json:"state,omitempty" jsonschema:"enum=pending,enum=firing,description=Only alerts in this state; default both"`
}

// AlertEvent is one transition of an alert.
type AlertEvent struct {
	ID     int64           `json:"id"`
	Rule   string          `json:"rule"`
	Group  json.RawMessage `json:"group"`
	State  string          `json:"state"`
	Values json.RawMessage `json:"values"`
	At     time.Time       `json:"at"`
	// Mitigation is the route an "announced", "withdrawn" or "refused" event is about.
	Mitigation *AlertMitigation `json:"mitigation,omitempty"`
}

// AlertMitigation is a route announced to stop a firing group's flood (a rule's bgp channel).
type AlertMitigation struct {
	// BGP is "blackhole" or "flowspec"; Prefix the address as a /32 or /128.
	BGP    string `json:"bgp"`
	Prefix string `json:"prefix"`
	// Protocol and Port narrow a flowspec rule; absent for any.
	Protocol uint8  `json:"protocol,omitempty"`
	Port     uint16 `json:"port,omitempty"`
	// NextHop is a blackhole route's next hop (blackhole_nexthop).
	NextHop string `json:"next_hop,omitempty"`
	// Reason says why a route was refused or withdrawn.
	Reason string `json:"reason,omitempty"`
}

// AlertHistoryArgs are the arguments of alert-history; all may be left out.
type AlertHistoryArgs struct {
	Rule   string            `json:"rule,omitempty" jsonschema:"maxLength=64,description=UUID of a rule; default every rule"`
	Labels map[string]string `json:"labels,omitempty" jsonschema:"description=Only the rules that carry every one of these labels"`
	Since  time.Time         `json:"since,omitzero" jsonschema:"description=The oldest time (RFC 3339)"`
	Until  time.Time         `json:"until,omitzero" jsonschema:"description=The time before which (RFC 3339)"`
}

// SilenceAlertArgs are the arguments of silence-alert.
type SilenceAlertArgs struct {
	Rule  string          `json:"rule" jsonschema:"maxLength=64,description=UUID of the rule"`
	Group json.RawMessage `json:"group,omitempty" jsonschema:"type=array,description=The group's keys as list-alerts answers them; default every group"`
	Until time.Time       `json:"until" jsonschema:"description=When notifications resume (RFC 3339)"`
}

// AcknowledgeAlertArgs are the arguments of acknowledge-alert.
type AcknowledgeAlertArgs struct {
	Rule  string          `json:"rule" jsonschema:"maxLength=64,description=UUID of the rule"`
	Group json.RawMessage `json:"group" jsonschema:"type=array,description=The group's keys as list-alerts answers them"`
}
