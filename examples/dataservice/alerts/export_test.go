package alerts

// ListRules is list-alert-rules, for the tests.
var ListRules = (*Service).listRules
