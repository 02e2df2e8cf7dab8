// Package queue carries the service's records through NATS JetStream (issue 41), so that no
// record is lost while the records store is unreachable: a node started with -queue publishes
// the records it produces (collectors, probe, ingest) to the stream Stream instead of storing
// them, and a node started with -consume stores the stream's batches through the durable
// consumer Durable, which every consuming node shares.
//
// Publishing. The records are given their context (zones, AS, names) on the publishing node,
// then encoded (Encode: versioned, varints, about 65 bytes a flow record) in messages of at
// most 8192 records, each with the id BATCH.PART in Nats-Msg-Id: JetStream drops a message
// published again under its id within Duplicates. Ingest returns once JetStream acknowledged
// every message. When NATS cannot be reached, the stream is full (it discards new messages
// past MaxBytes) or MaxInFlight bytes already wait for acknowledgements, Ingest fails at once
// with records.ErrUnavailable, so collectors count their records lost as without a queue, and
// memory stays bounded.
//
// The stream, created by the first node that finds it missing: file storage, work-queue
// retention (a batch leaves the stream once stored), replicas 3 or as many as the cluster has,
// MaxBytes (flag -queue-max-bytes, DefaultMaxBytes) and MaxAge (DefaultMaxAge), discard new
// when full. A stream that exists keeps its settings. Subjects: Subject for the batches,
// DeadSubject for those the store refused.
//
// Consuming, exactly once. A batch is acknowledged only after the store's IngestBatch
// returned nil; a store that is a Gatherer (ClickHouse, whose cost is mostly by insert;
// DuckDB, by commit) gets the batches of each fetch gathered into writes of at most
// GatherRecords records, each batch acknowledged after its write. Every message of a fetch is kept in progress from its
// delivery to its answer. JetStream delivers a batch again when its acknowledgement did not arrive
// (the consuming node died, the store's answer was lost): the store recognises its id
// (records.BatchStore: DuckDB keeps the ids in the transaction of the rows; ClickHouse writes
// the id after the rows, see its doc for the window that leaves) and stores it once. The rollups
// follow the records in both stores. A batch that does not decode, or that the store refuses
// for its content (a *records.BatchError), goes to DeadSubject with the reason in its header
// Svc-Error, is counted, and the stream goes on; a batch the store could not take for its
// availability waits in the stream and comes again, after a delay that grows to 30 s.
package queue
