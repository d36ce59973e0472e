// Package multi checks logs of many objects (a key-value store's keys,
// Jepsen's independent keys, a Kafka topic): it routes each event to its
// object's engine.Monitor on a worker, and parks or drops the monitors of
// idle objects so that memory follows the live objects, not the log.
package multi
