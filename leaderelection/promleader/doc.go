// Package promleader exports the leader status of electors to Prometheus.
//
// One Metrics serves any number of electors (one per lease) on the
// Registerer you choose; the package never touches the global registry:
//
//	m, err := promleader.New(promleader.Options{Registerer: reg})
//	if err != nil {
//		return err
//	}
//	e, err := leaderelection.New(store, leaderelection.Config{..., Metrics: m})
//
// The series keeps the name client-go and controller-runtime use, so
// existing dashboards and alerts work:
//
//	leader_election_master_status{name="<lease name>"}  gauge  1 while leading, else 0
package promleader
