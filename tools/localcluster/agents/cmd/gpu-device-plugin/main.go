// Command gpu-device-plugin is the local cluster's SIMULATED GPUs: a kubelet device plugin that
// advertises --count devices of --resource (nvidia.com/gpu) on its node, with no hardware behind
// them. It follows NVIDIA's k8s-device-plugin (internal/plugin/server.go) where a pod can see it:
// it registers with the kubelet over the v1beta1 device plugin API, lists its devices as healthy,
// and Allocate hands a container NVIDIA_VISIBLE_DEVICES with the devices' ids. The kubelet removes
// plugin sockets when it restarts; the plugin then serves and registers again.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	deviceplugin "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"
)

type plugin struct {
	deviceplugin.UnimplementedDevicePluginServer
	devices []*deviceplugin.Device
}

func (p *plugin) GetDevicePluginOptions(context.Context, *deviceplugin.Empty) (*deviceplugin.DevicePluginOptions, error) {
	return &deviceplugin.DevicePluginOptions{}, nil
}

// ListAndWatch sends the devices once: simulated GPUs never change health.
func (p *plugin) ListAndWatch(_ *deviceplugin.Empty, stream deviceplugin.DevicePlugin_ListAndWatchServer) error {
	if err := stream.Send(&deviceplugin.ListAndWatchResponse{Devices: p.devices}); err != nil {
		return err
	}
	<-stream.Context().Done()
	return nil
}

func (p *plugin) Allocate(_ context.Context, request *deviceplugin.AllocateRequest) (*deviceplugin.AllocateResponse, error) {
	known := map[string]bool{}
	for _, device := range p.devices {
		known[device.ID] = true
	}
	response := &deviceplugin.AllocateResponse{}
	for _, container := range request.ContainerRequests {
		for _, id := range container.DevicesIDs {
			if !known[id] {
				return nil, fmt.Errorf("unknown device %q", id)
			}
		}
		response.ContainerResponses = append(response.ContainerResponses, &deviceplugin.ContainerAllocateResponse{
			Envs: map[string]string{"NVIDIA_VISIBLE_DEVICES": strings.Join(container.DevicesIDs, ",")},
		})
	}
	return response, nil
}

func (p *plugin) PreStartContainer(context.Context, *deviceplugin.PreStartContainerRequest) (*deviceplugin.PreStartContainerResponse, error) {
	return &deviceplugin.PreStartContainerResponse{}, nil
}

// inode of path, 0 when it is absent.
func inode(path string) uint64 {
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return info.Sys().(*syscall.Stat_t).Ino
}

// serve serves the plugin on its socket and registers it with the kubelet; it returns when the
// kubelet's socket is replaced (a kubelet restart) or the plugin's own socket is removed.
func serve(p *plugin, dir, name, resource string) error {
	socket := filepath.Join(dir, name)
	kubelet := filepath.Join(dir, "kubelet.sock")
	os.Remove(socket)
	listener, err := net.Listen("unix", socket)
	if err != nil {
		return err
	}
	server := grpc.NewServer()
	deviceplugin.RegisterDevicePluginServer(server, p)
	go server.Serve(listener)
	defer server.Stop()

	kubeletInode := inode(kubelet)
	conn, err := grpc.NewClient("unix://"+kubelet, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	_, err = deviceplugin.NewRegistrationClient(conn).Register(ctx, &deviceplugin.RegisterRequest{
		Version: deviceplugin.Version, Endpoint: name, ResourceName: resource,
		Options: &deviceplugin.DevicePluginOptions{}})
	cancel()
	conn.Close()
	if err != nil {
		return fmt.Errorf("registering with the kubelet: %w", err)
	}
	log.Printf("registered %d x %s with the kubelet", len(p.devices), resource)
	for inode(kubelet) == kubeletInode && inode(socket) != 0 {
		time.Sleep(2 * time.Second)
	}
	log.Print("the kubelet restarted: registering again")
	return nil
}

func main() {
	resource := flag.String("resource", "nvidia.com/gpu", "the extended resource the devices are")
	count := flag.Int("count", 8, "how many devices the node has")
	dir := flag.String("socket-dir", deviceplugin.DevicePluginPath, "the kubelet's device-plugins directory")
	flag.Parse()
	node, _ := os.Hostname()
	if value := os.Getenv("NODE_NAME"); value != "" {
		node = value
	}
	p := &plugin{}
	for index := 0; index < *count; index++ {
		// Shaped like the UUIDs nvidia-smi gives, and unique across the cluster.
		p.devices = append(p.devices, &deviceplugin.Device{ID: fmt.Sprintf("GPU-simulated-%s-%d", node, index), Health: deviceplugin.Healthy})
	}
	name := "fluidops-simulated-gpu.sock"
	for {
		if err := serve(p, *dir, name, *resource); err != nil {
			log.Printf("%v; retrying in 2 s", err)
			time.Sleep(2 * time.Second)
		}
	}
}
