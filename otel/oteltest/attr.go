package oteltest

import (
	"strconv"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
)

// attrText returns the value of the attribute key in kvs as text, "" when absent.
func attrText(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.GetKey() != key {
			continue
		}
		switch v := kv.GetValue().GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			return v.StringValue
		case *commonpb.AnyValue_IntValue:
			return strconv.FormatInt(v.IntValue, 10)
		case *commonpb.AnyValue_BoolValue:
			return strconv.FormatBool(v.BoolValue)
		case *commonpb.AnyValue_DoubleValue:
			return strconv.FormatFloat(v.DoubleValue, 'g', -1, 64)
		}
		return kv.GetValue().String()
	}
	return ""
}

// EventAttr returns the value of an attribute of a span event as text, "" when absent.
func EventAttr(e interface{ GetAttributes() []*commonpb.KeyValue }, key string) string {
	return attrText(e.GetAttributes(), key)
}
