// Package kubegotest helps tests of controllers: Eventually polls a
// condition until it holds or the context ends, failing the test with the
// condition's last answer; Logger writes a program's slog records to the
// test's output; Events and CoreEvents list the Events about an object.
//
//	func TestScales(t *testing.T) {
//		ctx := t.Context()
//		mgr, _ := manager.New(manager.Options{Config: cfg, Logger: kubegotest.Logger(t, nil)})
//		...
//		kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
//			d, err := deployments.Get(ctx, "web", metav1.GetOptions{})
//			if err != nil {
//				return err
//			}
//			if d.Status.AvailableReplicas != 3 {
//				return fmt.Errorf("%d replicas available, want 3", d.Status.AvailableReplicas)
//			}
//			return nil
//		})
//	}
package kubegotest
