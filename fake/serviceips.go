package fake

import (
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// What kube-apiserver's Service registry allocates: cluster IPs from the
// service CIDR and node ports from the node port range. The fake uses the
// ranges of testenv's kube-apiserver (--service-cluster-ip-range
// 10.0.0.0/24, the default node port range) on a single-stack IPv4
// cluster, and allocates the lowest free address and port (a real server
// picks at random).

var servicesGVR = schema.GroupVersionResource{Version: "v1", Resource: "services"}

var (
	serviceCIDR   = netip.MustParsePrefix("10.0.0.0/24")
	firstNodePort = int32(30000)
	lastNodePort  = int32(32767)
)

// allocateService gives a Service being written what the registry
// allocates: cluster IPs, IP families and their policy, node ports and the
// health check node port; on update (old not nil) the values the write
// leaves out are kept from old, as kube-apiserver does. Caller holds s.mu.
func (s *Server) allocateService(u, old map[string]any) (map[string]any, error) {
	var svc corev1.Service
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, &svc); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if old != nil {
		var prev corev1.Service
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(old, &prev); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		keepAllocated(&svc, &prev)
	}
	sp := &svc.Spec
	if sp.Type != corev1.ServiceTypeExternalName {
		switch {
		case sp.ClusterIP == "" && len(sp.ClusterIPs) > 0:
			sp.ClusterIP = sp.ClusterIPs[0]
		case sp.ClusterIP != "" && len(sp.ClusterIPs) == 0:
			sp.ClusterIPs = []string{sp.ClusterIP}
		}
		if sp.ClusterIP == "" {
			ip, err := s.freeClusterIP()
			if err != nil {
				return nil, err
			}
			sp.ClusterIP, sp.ClusterIPs = ip, []string{ip}
		}
		if sp.IPFamilyPolicy == nil {
			policy := corev1.IPFamilyPolicySingleStack
			if sp.ClusterIP == corev1.ClusterIPNone && len(sp.Selector) == 0 {
				policy = corev1.IPFamilyPolicyRequireDualStack
			}
			sp.IPFamilyPolicy = &policy
		}
		if len(sp.IPFamilies) == 0 {
			sp.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
			// A headless Service without a selector requiring both
			// families lists both, even on a single-stack cluster.
			if sp.ClusterIP == corev1.ClusterIPNone && *sp.IPFamilyPolicy == corev1.IPFamilyPolicyRequireDualStack {
				sp.IPFamilies = append(sp.IPFamilies, corev1.IPv6Protocol)
			}
		}
	}
	needsNodePorts := sp.Type == corev1.ServiceTypeNodePort ||
		(sp.Type == corev1.ServiceTypeLoadBalancer && (sp.AllocateLoadBalancerNodePorts == nil || *sp.AllocateLoadBalancerNodePorts))
	if needsNodePorts {
		for i := range sp.Ports {
			if sp.Ports[i].NodePort != 0 {
				continue
			}
			p, err := s.freeNodePort(&svc)
			if err != nil {
				return nil, err
			}
			sp.Ports[i].NodePort = p
		}
	}
	if sp.Type == corev1.ServiceTypeLoadBalancer && sp.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal && sp.HealthCheckNodePort == 0 {
		p, err := s.freeNodePort(&svc)
		if err != nil {
			return nil, err
		}
		sp.HealthCheckNodePort = p
	}
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&svc)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	out["apiVersion"], out["kind"] = "v1", "Service"
	return out, nil
}

// keepAllocated copies into svc the allocated values an update leaves out
// and prev holds.
func keepAllocated(svc, prev *corev1.Service) {
	sp, pp := &svc.Spec, &prev.Spec
	if sp.Type != corev1.ServiceTypeExternalName && pp.Type != corev1.ServiceTypeExternalName {
		if sp.ClusterIP == "" {
			sp.ClusterIP = pp.ClusterIP
		}
		if len(sp.ClusterIPs) == 0 && len(pp.ClusterIPs) > 0 {
			sp.ClusterIPs = pp.ClusterIPs
		}
		if sp.IPFamilyPolicy == nil {
			sp.IPFamilyPolicy = pp.IPFamilyPolicy
		}
		if len(sp.IPFamilies) == 0 {
			sp.IPFamilies = pp.IPFamilies
		}
	}
	if len(pp.Ports) > 0 && len(sp.Ports) > 0 {
		inNew := map[int32]bool{}
		for _, p := range sp.Ports {
			if p.NodePort != 0 {
				inNew[p.NodePort] = true
			}
		}
		byName := map[string]int32{}
		for _, p := range pp.Ports {
			byName[p.Name] = p.NodePort
		}
		for i := range sp.Ports {
			if p := &sp.Ports[i]; p.NodePort == 0 && !inNew[byName[p.Name]] {
				p.NodePort = byName[p.Name]
			}
		}
	}
	if sp.Type == corev1.ServiceTypeLoadBalancer && pp.Type == corev1.ServiceTypeLoadBalancer && sp.HealthCheckNodePort == 0 &&
		sp.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal && pp.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal {
		sp.HealthCheckNodePort = pp.HealthCheckNodePort
	}
}

// usedByServices calls f with every cluster IP and node port stored
// Services hold.
func (s *Server) usedByServices(f func(ip string, port int32)) {
	for _, o := range s.st.data[servicesGVR] {
		spec, _ := o.u["spec"].(map[string]any)
		if ips, ok := spec["clusterIPs"].([]any); ok {
			for _, ip := range ips {
				if ip, ok := ip.(string); ok {
					f(ip, 0)
				}
			}
		}
		if hc, ok := spec["healthCheckNodePort"].(int64); ok {
			f("", int32(hc))
		}
		ports, _ := spec["ports"].([]any)
		for _, p := range ports {
			if pm, ok := p.(map[string]any); ok {
				if np, ok := pm["nodePort"].(int64); ok {
					f("", int32(np))
				}
			}
		}
	}
}

// freeClusterIP returns the lowest address of the service CIDR no Service
// holds, after the first (kube-apiserver's own Service has it).
func (s *Server) freeClusterIP() (string, error) {
	used := map[string]bool{}
	s.usedByServices(func(ip string, _ int32) { used[ip] = true })
	for a := serviceCIDR.Addr().Next().Next(); serviceCIDR.Contains(a); a = a.Next() {
		if !serviceCIDR.Contains(a.Next()) {
			break // the broadcast address
		}
		if !used[a.String()] {
			return a.String(), nil
		}
	}
	return "", apierrors.NewInternalError(fmt.Errorf("failed to allocate a serviceIP: range is full"))
}

// freeNodePort returns the lowest node port neither a stored Service nor
// svc (being written) holds.
func (s *Server) freeNodePort(svc *corev1.Service) (int32, error) {
	used := map[int32]bool{svc.Spec.HealthCheckNodePort: true}
	for _, p := range svc.Spec.Ports {
		used[p.NodePort] = true
	}
	s.usedByServices(func(_ string, p int32) { used[p] = true })
	for p := firstNodePort; p <= lastNodePort; p++ {
		if !used[p] {
			return p, nil
		}
	}
	return 0, apierrors.NewInternalError(fmt.Errorf("failed to allocate a nodePort: range is full"))
}
