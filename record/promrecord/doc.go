// Package promrecord exports an event recorder's counts to Prometheus.
//
//	m, err := promrecord.New(promrecord.Options{Registerer: reg})
//	if err != nil {
//		return err
//	}
//	rec, err := record.New(sink, record.Options{..., Metrics: m})
//
// Series (the package never touches the global registry):
//
//	event_recorder_dropped_total{reason}  counter  occurrences not recorded, by record.DropReason
//	event_recorder_writes_total{result}   counter  writes to the API server, result "success" or "error"
package promrecord
