// Command csi-registrar registers a CSI driver's node plugin with the kubelet, as
// kubernetes-csi/node-driver-registrar does (that image is not served here): it asks the driver
// its name over CSI, then serves the kubelet's plugin registration API on
// <plugin-registration-path>/<name>-reg.sock, telling the kubelet where the driver listens.
// Flags follow node-driver-registrar's: --csi-address (the driver's socket, as this container
// sees it) and --kubelet-registration-path (the same socket, as the kubelet sees it).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	csi "github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	registration "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
)

type registrar struct {
	registration.UnimplementedRegistrationServer
	driver, endpoint string
}

func (r *registrar) GetInfo(context.Context, *registration.InfoRequest) (*registration.PluginInfo, error) {
	return &registration.PluginInfo{Type: registration.CSIPlugin, Name: r.driver, Endpoint: r.endpoint,
		SupportedVersions: []string{"1.0.0"}}, nil
}

// NotifyRegistrationStatus: a refused registration ends the process, so its container restarts
// and registers again (node-driver-registrar does the same).
func (r *registrar) NotifyRegistrationStatus(_ context.Context, status *registration.RegistrationStatus) (*registration.RegistrationStatusResponse, error) {
	if !status.PluginRegistered {
		log.Printf("the kubelet refused %s: %s", r.driver, status.Error)
		os.Exit(1)
	}
	log.Printf("the kubelet registered %s at %s", r.driver, r.endpoint)
	return &registration.RegistrationStatusResponse{}, nil
}

// driverName asks the driver for its name, waiting for its socket as the driver starts.
func driverName(address string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		conn, err := grpc.NewClient("unix://"+address, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err == nil {
			info, callErr := csi.NewIdentityClient(conn).GetPluginInfo(ctx, &csi.GetPluginInfoRequest{})
			conn.Close()
			if callErr == nil {
				return info.GetName(), nil
			}
			err = callErr
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("no answer from the CSI driver at %s: %w", address, err)
		case <-time.After(time.Second):
		}
	}
}

func main() {
	csiAddress := flag.String("csi-address", "/run/csi/socket", "the CSI driver's socket in this container")
	kubeletPath := flag.String("kubelet-registration-path", "", "the CSI driver's socket on the node, as the kubelet opens it")
	registrationDir := flag.String("plugin-registration-path", "/registration", "the kubelet's plugins_registry directory in this container")
	timeout := flag.Duration("timeout", 5*time.Minute, "how long to wait for the CSI driver to answer")
	// Charts give node-driver-registrar klog's --v; this registrar logs its few events at any level.
	flag.Int("v", 0, "log verbosity (accepted for node-driver-registrar's flags)")
	flag.Parse()
	if *kubeletPath == "" {
		log.Fatal("--kubelet-registration-path is required: the driver's socket path on the node")
	}
	name, err := driverName(*csiAddress, *timeout)
	if err != nil {
		log.Fatal(err)
	}
	socket := filepath.Join(*registrationDir, name+"-reg.sock")
	if err := os.Remove(socket); err != nil && !os.IsNotExist(err) {
		log.Fatalf("removing the stale %s: %v", socket, err)
	}
	listener, err := net.Listen("unix", socket)
	if err != nil {
		log.Fatal(err)
	}
	server := grpc.NewServer()
	registration.RegisterRegistrationServer(server, &registrar{driver: name, endpoint: *kubeletPath})
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		server.Stop()
		os.Remove(socket)
		os.Exit(0)
	}()
	log.Printf("serving the registration of %s on %s", name, socket)
	log.Fatal(server.Serve(listener))
}
