package collect

import (
	"errors"
	"time"

	"github.com/netsampler/goflow2/v2/decoders/netflow"
)

// errTemplateRefused is the error of templateStore.AddTemplate for a template past the bounds
// or one goflow2 cannot decode data with.
var errTemplateRefused = errors.New("template refused")

// netflowState is what the collector keeps of one NetFlow v9 or IPFIX exporter: its templates
// and, per observation domain, its sampling rates and boot time. It belongs to one worker.
type netflowState struct {
	templates map[uint64]*template
	fields    int // fields of all templates, bounded by limits.MaxTemplateFields
	domains   map[uint64]*domain
}

type template struct {
	def      any // netflow.TemplateRecord, NFv9OptionsTemplateRecord or IPFIXOptionsTemplateRecord
	fields   int
	lastSeen time.Time
}

// domain is the state of one observation domain (source ID in NetFlow v9).
type domain struct {
	rate     uint32            // sampling rate of options without sampler; 0: unknown
	samplers map[uint32]uint32 // sampling rate per sampler ID
	sysInit  int64             // IPFIX systemInitTimeMilliseconds; 0: unknown
	lastSeen time.Time
}

// maxDomains and maxSamplers bound the domains of an exporter and the samplers of a domain.
const (
	maxDomains  = 64
	maxSamplers = 64
)

// templateStore is the netflow.NetFlowTemplateSystem goflow2 decodes one datagram of ex with:
// the exporter's templates, bounded in number and size, expiring after ttl.
type templateStore struct {
	ex     *exporter
	now    time.Time
	limits *Limits
}

var _ netflow.NetFlowTemplateSystem = (*templateStore)(nil)

func templateKey(version uint16, domain uint32, id uint16) uint64 {
	return uint64(version)<<48 | uint64(domain)<<16 | uint64(id)
}

// AddTemplate keeps a template, refusing one past the bounds on templates and fields, and one
// whose records would have no fixed size (on which goflow2's data set loop never ends).
func (s *templateStore) AddTemplate(version uint16, domain uint32, id uint16, def any) error {
	var fields [][]netflow.Field
	switch d := def.(type) {
	case netflow.TemplateRecord:
		fields = [][]netflow.Field{d.Fields}
	case netflow.NFv9OptionsTemplateRecord:
		fields = [][]netflow.Field{d.Scopes, d.Options}
	case netflow.IPFIXOptionsTemplateRecord:
		fields = [][]netflow.Field{d.Scopes, d.Options}
	default:
		return errTemplateRefused
	}
	n, size := 0, 0
	for _, fs := range fields {
		n += len(fs)
		for _, f := range fs {
			if f.Length == 0xffff {
				size++ // a variable-length field takes at least its length byte
			} else {
				size += int(f.Length)
			}
		}
	}
	st := &s.ex.nf
	if st.templates == nil {
		st.templates = make(map[uint64]*template)
	}
	k := templateKey(version, domain, id)
	old := st.templates[k]
	held := st.fields
	if old != nil {
		held -= old.fields
	}
	if size == 0 || held+n > s.limits.MaxTemplateFields ||
		(old == nil && len(st.templates) >= s.limits.MaxTemplates) {
		s.ex.refusedTpl.Add(1)
		return errTemplateRefused
	}
	st.templates[k] = &template{def: def, fields: n, lastSeen: s.now}
	st.fields = held + n
	s.ex.templates.Store(int64(len(st.templates)))
	return nil
}

// GetTemplate returns a template not expired.
func (s *templateStore) GetTemplate(version uint16, domain uint32, id uint16) (any, error) {
	k := templateKey(version, domain, id)
	t := s.ex.nf.templates[k]
	if t == nil {
		return nil, netflow.ErrorTemplateNotFound
	}
	if s.now.Sub(t.lastSeen) > s.limits.TemplateTTL {
		s.RemoveTemplate(version, domain, id)
		return nil, netflow.ErrorTemplateNotFound
	}
	return t.def, nil
}

// RemoveTemplate forgets a template.
func (s *templateStore) RemoveTemplate(version uint16, domain uint32, id uint16) (any, error) {
	st := &s.ex.nf
	k := templateKey(version, domain, id)
	t := st.templates[k]
	if t == nil {
		return nil, netflow.ErrorTemplateNotFound
	}
	delete(st.templates, k)
	st.fields -= t.fields
	s.ex.templates.Store(int64(len(st.templates)))
	return t.def, nil
}

// GetTemplates is not used by the decoder; it returns nothing.
func (s *templateStore) GetTemplates() netflow.FlowBaseTemplateSet { return nil }

// domain returns the state of an observation domain, nil when the exporter has too many.
func (s *templateStore) domain(version uint16, id uint32) *domain {
	st := &s.ex.nf
	if st.domains == nil {
		st.domains = make(map[uint64]*domain)
	}
	k := uint64(version)<<32 | uint64(id)
	d := st.domains[k]
	if d == nil {
		if len(st.domains) >= maxDomains {
			for dk, old := range st.domains {
				if s.now.Sub(old.lastSeen) > s.limits.TemplateTTL {
					delete(st.domains, dk)
				}
			}
			if len(st.domains) >= maxDomains {
				return nil
			}
		}
		d = &domain{}
		st.domains[k] = d
	}
	d.lastSeen = s.now
	return d
}
