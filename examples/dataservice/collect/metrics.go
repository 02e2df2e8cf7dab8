package collect

import (
	"fmt"
	"io"
	"net/http"
)

// perExporter are the counters kept per exporter, by metric name.
var perExporter = []struct {
	name, typ, help string
	value           func(*exporter) int64
}{
	{"collector_datagrams_total", "counter", "datagrams received",
		func(e *exporter) int64 { return int64(e.datagrams.Load()) }},
	{"collector_datagrams_dropped_total", "counter", "datagrams dropped because the queue was full",
		func(e *exporter) int64 { return int64(e.dropped.Load()) }},
	{"collector_decode_errors_total", "counter", "datagrams that did not decode (in full or in part)",
		func(e *exporter) int64 { return int64(e.decodeErrors.Load()) }},
	{"collector_flows_total", "counter", "flows decoded",
		func(e *exporter) int64 { return int64(e.flows.Load()) }},
	{"collector_records_invalid_total", "counter", "records of flows that failed validation (impossible times)",
		func(e *exporter) int64 { return int64(e.invalid.Load()) }},
	{"collector_sets_without_template_total", "counter", "NetFlow v9 or IPFIX data sets dropped because their template was unknown or expired",
		func(e *exporter) int64 { return int64(e.noTemplate.Load()) }},
	{"collector_templates_refused_total", "counter", "templates refused by the bounds on templates and fields",
		func(e *exporter) int64 { return int64(e.refusedTpl.Load()) }},
	{"collector_fields_ignored_total", "counter", "nProbe or Cisco AVC fields ignored: of a length no unsigned integer has, or too large a value",
		func(e *exporter) int64 { return int64(e.ignoredFields.Load()) }},
	{"collector_layer_values_left_out_total", "counter", "HTTP methods, hosts and paths and DNS query names of layer records past the hourly bounds (read as {other}, or no host)",
		func(e *exporter) int64 { return int64(e.leftOut.Load()) }},
	{"collector_templates", "gauge", "templates held",
		func(e *exporter) int64 { return e.templates.Load() }},
}

// WriteMetrics writes the collector's metrics in the Prometheus text format: per exporter
// (label exporter) datagrams received and dropped, decode errors, flows, invalid records, data
// sets without template, refused and held templates, ignored vendor fields, layer values left
// out past the hourly bounds; and in total the exporters known, datagrams of refused exporters,
// exporters evicted, records stored, batches the store refused and their records.
func (c *Collector) WriteMetrics(w io.Writer) {
	list := c.exporters.list()
	for _, m := range perExporter {
		fmt.Fprintf(w, "# HELP %s Flow collector: %s.\n# TYPE %s %s\n", m.name, m.help, m.name, m.typ)
		for _, e := range list {
			fmt.Fprintf(w, "%s{exporter=%q,protocol=%q} %d\n", m.name, e.addr.String(), e.proto.String(), m.value(e))
		}
	}
	for _, m := range []struct {
		name, typ, help string
		value           uint64
	}{
		{"collector_exporters", "gauge", "exporters known", uint64(len(list))},
		{"collector_exporters_refused_datagrams_total", "counter", "datagrams dropped because MaxExporters exporters with recent flows are known", c.exporters.refused.Load()},
		{"collector_exporters_evicted_total", "counter", "exporters without recent flows evicted for new ones", c.exporters.evicted.Load()},
		{"collector_records_stored_total", "counter", "records stored", c.stats.stored.Load()},
		{"collector_store_errors_total", "counter", "batches the store refused", c.stats.storeErrors.Load()},
		{"collector_records_lost_total", "counter", "records of the batches the store refused", c.stats.lost.Load()},
	} {
		fmt.Fprintf(w, "# HELP %s Flow collector: %s.\n# TYPE %s %s\n%s %d\n", m.name, m.help, m.name, m.typ, m.name, m.value)
	}
}

// MetricsHandler serves WriteMetrics, after what next writes when next is not nil (the
// service's other metrics), at one address.
func (c *Collector) MetricsHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		if next != nil {
			next.ServeHTTP(w, r)
		}
		c.WriteMetrics(w)
	})
}
