// Package stream is what a streaming function uses to send its chunks, and how chunks build
// the single result of a non-streaming call.
//
// A streaming function takes a *Sender as its last parameter:
//
//	func count(ctx context.Context, in CountArgs, s *stream.Sender[int]) error {
//		for i := range in.N {
//			if err := s.Send(i); err != nil {
//				return err // the client went away
//			}
//		}
//		return nil
//	}
//
// Called in streaming mode, the client receives one chunk message per Send, then an end message
// (or one error message, and no end, when the function fails). Called in non-streaming mode, the
// same function answers one result: what the client would build from the chunks, as described by
// the Accumulator named at registration. Append (the default) collects the chunks into an array,
// Last keeps the last chunk (each chunk replaces the one before), and Func builds any other
// result.
//
// In non-streaming mode the chunks accumulate in the server's memory until the function
// returns: nothing but the function itself and the call's deadline bounds them. A function
// whose stream has no natural end (a follow, a tail) should refuse such a call, which it
// knows by registry.CallFrom(ctx).Sink() being nil, or accumulate with Last or Func, which
// keep one value.
package stream
