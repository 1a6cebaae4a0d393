// Package promqueue exports a workqueue's metrics to Prometheus.
//
// Create one Metrics per queue, registered on a Registerer you choose (the
// package never touches the global registry), and pass it in the queue's
// Options:
//
//	m, err := promqueue.New(promqueue.Options{Registerer: reg, Name: "deployments"})
//	if err != nil {
//		return err
//	}
//	q := workqueue.New(workqueue.Options[Key]{Metrics: m})
//
// The series keep the names client-go and controller-runtime use, with a
// constant "name" label (and a "controller" label for a controller's
// queue, as controller-runtime has it), so existing dashboards work:
//
//	workqueue_depth                              gauge      keys waiting for a worker
//	workqueue_adds_total                         counter    adds, not counting deduplicated ones
//	workqueue_queue_duration_seconds             histogram  time from add to a worker's Get
//	workqueue_work_duration_seconds              histogram  time from Get to Done
//	workqueue_unfinished_work_seconds            gauge      time held so far by keys not yet Done
//	workqueue_longest_running_processor_seconds  gauge      the longest of those
//	workqueue_retries_total                      counter    AddAfter and AddRateLimited calls
//
// The two in-flight gauges are computed when scraped, so no goroutine
// refreshes them.
package promqueue
