// Package alerts turns standing queries into alerts. A rule is one statement of the query
// language whose HAVING is the condition; each group that satisfies it is an alert of its
// own, pending until the condition has held for the rule's For, then firing, and resolved
// once it no longer holds. Every transition is kept with the values that caused it.
//
// An Evaluator runs the rules (Run, on one node at a time: the service gives it a lease):
// rules of one owner that share a query share one computation, answered with the owner in its
// context (Owner) so that what it keeps counts against the owner's share (package query); the
// service shows when each rule was last evaluated and why that failed. A notification follows the records that
// caused it by at most the rule's interval, plus the second Run waits between looks, plus
// the queries of the evaluation answered up to the rule's own (each query's rules are
// stepped, and the sender woken, as soon as it is answered), plus For, plus the delivery. Each evaluation writes the rule's
// transitions and the notifications they cause in one transaction of the state store (an
// outbox), and a sender delivers the outbox: webhooks (HTTPS, signed, retried with back-off
// until a 2xx answer) and e-mail (SMTP with STARTTLS). A node that dies mid-way loses nothing:
// the next holder of the lease reads the instances and the outbox where the other left them.
// The sender is fair (deliver.go): per-destination queues taking turns, attempts bounded per
// owner and per destination, so that a receiver that never answers holds only its own.
//
// Webhooks go to public addresses only, unless Guard allows more, checked on the address
// actually dialled (after DNS), with no redirect followed: a rule cannot make the service
// probe the network it sits in.
//
// A rule belongs to the user who created it: only they and administrators change it
// (update, delete, silence) or see its webhooks' URLs, credentials that others see as
// "https://host/…"; no error of a delivery holds a URL.
//
// A rule's bgp channels ({"bgp": "blackhole"} or "flowspec") announce each firing group's
// address through an Announcer, the BGP speaker (mitigator.go): only for addresses inside the
// zones mitigation_zones names, at most Options.MaxMitigations at once, held for
// Options.MitigationHold and not announced again for Options.MitigationDelay after a
// withdrawal. Routers obey what is announced: only administrators add a bgp channel or change
// a rule holding one.
//
// Service registers the functions of API 1.3 (create-alert-rule, list-alerts, ...).
//
// The package is also the alerts component of the service (component.go: Configuration,
// DefaultConfiguration, NewComponent, Start and Stop): its wiring is short, so it lives beside
// the domain it wires rather than in a sibling package. The component gets the engines that
// answer the rules from the query component through Dependencies, never by importing it;
// docs/architecture.md shows the order the service starts its components in.
package alerts
