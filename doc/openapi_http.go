package doc

import (
	"net/http"
	"strconv"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/invopop/jsonschema"
)

// httpSemantics adds to op, a call of f that answers one message, the headers of conditional
// reads and idempotent writes (see package transport): a GET of a read-only function takes
// If-None-Match and answers an ETag, or 304; a call of a function that changes things and
// needs a token takes an Idempotency-Key, and answers Idempotent-Replayed on a repeat, or 422.
func httpSemantics(op *oaOperation, f *registry.Func, post bool) {
	res := op.Responses["200"]
	str := &jsonschema.Schema{Type: "string"}
	switch {
	case f.NoStore || f.Streaming:
	case f.ReadOnly && !post:
		op.Parameters = append(op.Parameters, oaParameter{
			Name: "If-None-Match", In: "header",
			Description: "ETags of answers the client holds (or *): when one is the answer's, the call answers 304 without a body.",
			Schema:      str,
		})
		etag := map[string]oaHeader{"ETag": {Description: "A strong tag of the answer's body: a 128-bit hash of the message, -gzip appended for the gzipped representation.", Schema: str}}
		res.Headers = etag
		op.Responses[strconv.Itoa(http.StatusNotModified)] = oaResponse{
			Description: "Not Modified: If-None-Match holds the tag of the answer. No body.",
			Headers:     etag,
		}
	case !f.ReadOnly && f.Access != decl.Public:
		op.Parameters = append(op.Parameters, oaParameter{
			Name: "Idempotency-Key", In: "header",
			Description: "An opaque key of 1 to 255 bytes: the call runs once per caller and key for 24 hours; " +
				"a repeat with the same arguments gets the first answer again, one with other arguments 422.",
			Schema: &jsonschema.Schema{Type: "string", MinLength: ptr(uint64(1)), MaxLength: ptr(uint64(255))},
		})
		res.Headers = map[string]oaHeader{"Idempotent-Replayed": {Description: "true on the answer of a repeat with the same Idempotency-Key.", Schema: str}}
		status := strconv.Itoa(apierr.IdempotencyKeyReused.Status())
		if _, ok := op.Responses[status]; !ok {
			op.Responses[status] = oaResponse{
				Description: string(apierr.IdempotencyKeyReused.Code()) + ": " + apierr.IdempotencyKeyReused.Description(),
				Content:     map[string]oaMediaType{mediaJSON: {Schema: &jsonschema.Schema{Ref: "#/components/schemas/Error"}}},
			}
		}
	}
	op.Responses["200"] = res
}

func ptr[T any](v T) *T { return &v }
