package controller

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/kubego/kubego/examples/cronjob/api/v1"
	"github.com/kubego/kubego/examples/cronjob/cron"
)

// dueRun finds the same latest run as walking every run one by one, with
// few runs missed or very many, for dense, sparse, bursty and @every
// schedules.
func TestDueRunFindsTheLatestRun(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 30, 0, time.UTC)
	for _, tc := range []struct {
		spec string
		back time.Duration // creation this long before now
		many bool
	}{
		{"* * * * *", 30 * time.Minute, false},
		{"* * * * *", 3 * 24 * time.Hour, true},
		{"*/1 0-2 * * *", 10 * 24 * time.Hour, true}, // bursts of 180 runs, none in the last 9 hours
		{"0 0 * * *", 400 * 24 * time.Hour, true},
		{"0 0 29 2 *", 9 * 366 * 24 * time.Hour, false},
		{"@every 7m", 30 * 24 * time.Hour, true},
		{"@every 1s", 24 * time.Hour, true},
		{"@every 90m", 5 * time.Hour, false},
		{"0 13 * * *", 30 * time.Minute, false}, // none yet
	} {
		t.Run(tc.spec, func(t *testing.T) {
			sched, err := cron.Parse(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			created := now.Add(-tc.back)
			cj := &v1.CronJob{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(created)}}
			var want time.Time
			n := 0
			for r := sched.Next(created); !r.IsZero() && !r.After(now); r = sched.Next(r) {
				want, n = r, n+1
			}
			got, many := dueRun(sched, cj, nil, now)
			if !got.Equal(want) || many != tc.many {
				t.Fatalf("dueRun = %s, many %v; want %s (%d runs missed)", got, many, want, n)
			}
		})
	}
}
