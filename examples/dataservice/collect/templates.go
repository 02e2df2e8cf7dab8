package collect

import (
	"errors"
	"time"

	"github.com/netsampler/goflow2/v2/decoders/netflow"
)

// errTemplateRefused is the error of templateStore.AddTemplate for a template past the bounds
// of its exporter.
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

// AddTemplate keeps a template, refusing one past the bounds on templates and fields of the
// exporter once the expired ones are forgotten. screenTemplates has refused, before goflow2
// decoded them, the templates of a shape that would make data decode into too many fields.
func (s *templateStore) AddTemplate(version uint16, domain uint32, id uint16, def any) error {
	n := 0
	switch d := def.(type) {
	case netflow.TemplateRecord:
		n = len(d.Fields)
	case netflow.NFv9OptionsTemplateRecord:
		n = len(d.Scopes) + len(d.Options)
	case netflow.IPFIXOptionsTemplateRecord:
		n = len(d.Scopes) + len(d.Options)
	default:
		return errTemplateRefused
	}
	st := &s.ex.nf
	if st.templates == nil {
		st.templates = make(map[uint64]*template)
	}
	k := templateKey(version, domain, id)
	fits := func() bool {
		held := st.fields
		if old := st.templates[k]; old != nil {
			held -= old.fields
		} else if len(st.templates) >= s.limits.MaxTemplates {
			return false
		}
		return held+n <= s.limits.MaxTemplateFields
	}
	if !fits() {
		s.expire()
		if !fits() {
			s.ex.refusedTpl.Add(1)
			return errTemplateRefused
		}
	}
	if old := st.templates[k]; old != nil {
		st.fields -= old.fields
	}
	st.templates[k] = &template{def: def, fields: n, lastSeen: s.now}
	st.fields += n
	s.ex.templates.Store(int64(len(st.templates)))
	return nil
}

// expire forgets the templates not refreshed within TemplateTTL.
func (s *templateStore) expire() {
	st := &s.ex.nf
	for k, t := range st.templates {
		if s.now.Sub(t.lastSeen) > s.limits.TemplateTTL {
			delete(st.templates, k)
			st.fields -= t.fields
		}
	}
	s.ex.templates.Store(int64(len(st.templates)))
}

// withdraw forgets the IPFIX template id of domain, or every template of the kind of template
// set setID when id is setID (RFC 7011, section 8.1).
func (s *templateStore) withdraw(domain uint32, setID, id uint16) {
	if id != setID {
		_, _ = s.RemoveTemplate(10, domain, id)
		return
	}
	st := &s.ex.nf
	for k, t := range st.templates {
		_, options := t.def.(netflow.IPFIXOptionsTemplateRecord)
		if k>>16 == templateKey(10, domain, 0)>>16 && options == (setID == setIPFIXOptions) {
			_, _ = s.RemoveTemplate(10, domain, uint16(k))
		}
	}
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
