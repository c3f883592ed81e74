// The local cluster's own node agents, on the kubelet's plugin APIs: the simulated GPUs' device
// plugin and a CSI registrar (node-driver-registrar is not served by the module proxy).
module fluidops.local/localcluster/agents

go 1.24.0

require (
	github.com/container-storage-interface/spec v1.9.0
	google.golang.org/grpc v1.68.1
	k8s.io/kubelet v0.33.13
)

require (
	github.com/gogo/protobuf v1.3.2 // indirect
	github.com/golang/protobuf v1.5.4 // indirect
	golang.org/x/net v0.38.0 // indirect
	golang.org/x/sys v0.31.0 // indirect
	golang.org/x/text v0.23.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20241209162323-e6fa225c2576 // indirect
	google.golang.org/protobuf v1.36.5 // indirect
)
