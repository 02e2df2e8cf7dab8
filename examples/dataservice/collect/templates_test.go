package collect

import (
	"testing"
	"time"
)

// TestTemplateShapesRefused checks that the templates whose data would decode into too many
// fields or records are refused and counted, one by one, while the good ones of the same set
// are kept; and that a template record longer than its set is a decode error.
func TestTemplateShapesRefused(t *testing.T) {
	t.Parallel()
	attack := make([]field, 0, 4096)
	for range 4095 {
		attack = append(attack, field{1, 0})
	}
	attack = append(attack, field{8, 1})
	wide := make([]field, 257)
	for i := range wide {
		wide[i] = field{1, 4}
	}
	tpls := v9(0, 6000, 1700000040, 0, set(0, templateRecord(256, attack...)),
		set(0, cat(templateRecord(257, wide...), // more than MaxFieldsPerTemplate
			templateRecord(258, field{8, 4}, field{12, 4}, field{1, 0}, field{2, 0}, field{4, 0}, field{7, 0}, field{11, 0},
				field{10, 0}, field{14, 0}), // nine fields, 8 bytes
			templateRecord(259, field{1, 1}, field{2, 1}, field{4, 1}), // 3-byte records
			templateRecord(260, v9Fields...),                           // kept
			templateRecord(100, v9Fields...))))                         // an ID below 256
	data := func(id uint16, body []byte) []byte { return v9(1, 6000, 1700000040, 0, set(id, body)) }
	recs, c := collectAll(t, Limits{}, NetFlow, now, tpls,
		data(256, make([]byte, 3000)), data(257, make([]byte, 1028)), data(258, make([]byte, 800)), data(259, make([]byte, 300)),
		data(260, v9Data(client4, server4, 50000, 443, 100, 1, 0, 0)),
		v9(1, 6000, 1700000040, 0, set(0, cat(u16(261), u16(16000), u32(0))))) // 16,000 fields in 4 bytes
	if len(recs) != 1 || recs[0].Client.Bytes != 100 {
		t.Errorf("stored %+v, want the one flow of template 260", recs)
	}
	metric(t, c, `collector_templates_refused_total{exporter="192.0.2.1",protocol="netflow"} 5`)
	metric(t, c, `collector_templates{exporter="192.0.2.1",protocol="netflow"} 1`)
	metric(t, c, `collector_sets_without_template_total{exporter="192.0.2.1",protocol="netflow"} 4`)
	metric(t, c, `collector_decode_errors_total{exporter="192.0.2.1",protocol="netflow"} 1`)
	st := c.Status(now)
	if e := st.Exporters[0]; e.TemplatesRefused != 5 || e.Templates != 1 {
		t.Errorf("status: %d templates refused, %d held; want 5 and 1", e.TemplatesRefused, e.Templates)
	}
}

// TestTemplateWithdrawal checks IPFIX template withdrawals: of one template, and of every
// template of a kind; and that padding after the records of a template set is not a template.
func TestTemplateWithdrawal(t *testing.T) {
	t.Parallel()
	tpl := func(id uint16) []byte {
		return templateRecord(id, field{8, 4}, field{12, 4}, field{7, 2}, field{11, 2}, field{4, 1}, field{1, 8}, field{2, 8})
	}
	rec := func(port uint16) []byte {
		s, d := client4.As4(), server4.As4()
		return cat(s[:], d[:], u16(port), u16(443), []byte{6}, u64(100), u64(1))
	}
	opts := set(3, ipfixOptionsTemplate(400, []field{{149, 4}}, []field{{305, 4}, {306, 4}}))
	recs, c := collectAll(t, Limits{}, NetFlow, now,
		ipfix(1700000040, 5, set(2, cat(tpl(500), tpl(501), tpl(502), make([]byte, 4))), opts),
		ipfix(1700000040, 5, set(2, templateRecord(500)), set(500, rec(50001)), set(501, rec(50002))), // 500 withdrawn
		ipfix(1700000040, 5, set(2, templateRecord(2)), set(501, rec(50003)), set(502, rec(50004))),   // all withdrawn
	)
	if len(recs) != 1 || recs[0].Client.Port != 50002 {
		t.Errorf("stored %+v, want the flow of port 50002 only", recs)
	}
	metric(t, c, `collector_templates{exporter="192.0.2.1",protocol="netflow"} 1`) // the options template
	metric(t, c, `collector_sets_without_template_total{exporter="192.0.2.1",protocol="netflow"} 3`)
	metric(t, c, `collector_templates_refused_total{exporter="192.0.2.1",protocol="netflow"} 0`)
}

// TestExpiredTemplatesFreed checks that templates past TemplateTTL give their places up to new
// ones: an exporter that used MaxTemplates IDs an hour ago is not refused new ones.
func TestExpiredTemplatesFreed(t *testing.T) {
	t.Parallel()
	s := &memStore{}
	c := New(s, nil, Limits{Workers: 1, MaxTemplates: 4, TemplateTTL: time.Minute})
	var old []byte
	for id := range uint16(4) {
		old = append(old, templateRecord(256+id, v9Fields...)...)
	}
	c.receive(exporterA, NetFlow, v9(0, 6000, 1700000040, 0, set(0, old)), now)
	later := now.Add(2 * time.Minute)
	c.receive(exporterA, NetFlow, v9(2, 126000, 1700000160, 0, set(0, templateRecord(300, v9Fields...)),
		set(300, v9Data(client4, server4, 50000, 443, 100, 1, 0, 0))), later)
	c.Close()
	if len(s.recs) != 1 {
		t.Errorf("stored %+v, want the flow of the new template", s.recs)
	}
	metric(t, c, `collector_templates_refused_total{exporter="192.0.2.1",protocol="netflow"} 0`)
	metric(t, c, `collector_templates{exporter="192.0.2.1",protocol="netflow"} 1`)
}
