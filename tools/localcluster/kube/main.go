// Command kube runs one real Kubernetes component, chosen by its first argument:
//
//	kube etcd|apiserver|controller-manager|scheduler|kubelet|kube-proxy [flags]
//
// One binary links the shared Kubernetes code once, which halves build time and disk. The node
// hosts run the same binary as their kubelet and kube-proxy. kubectl is built on its own
// (k8s.io/kubernetes/cmd/kubectl, tools/localcluster/build.sh): the tests and scripts run it some
// hundreds of times, and in here each run would start every component's packages (0.18
// CPU-seconds a call, against 0.06).
package main

import (
	"fmt"
	"os"

	_ "time/tzdata" // CronJob time zones, as upstream's kube-apiserver

	"github.com/spf13/cobra"
	"go.etcd.io/etcd/server/v3/etcdmain"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	proxy "k8s.io/kubernetes/cmd/kube-proxy/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	kubelet "k8s.io/kubernetes/cmd/kubelet/app"
)

func main() {
	commands := map[string]func() *cobra.Command{
		"apiserver":          apiserver.NewAPIServerCommand,
		"controller-manager": controllermanager.NewControllerManagerCommand,
		"scheduler":          func() *cobra.Command { return scheduler.NewSchedulerCommand() },
		"kubelet":            kubelet.NewKubeletCommand,
		"kube-proxy":         proxy.NewProxyCommand,
	}
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: kube etcd|apiserver|controller-manager|scheduler|kubelet|kube-proxy [flags]")
		os.Exit(2)
	}
	name := os.Args[1]
	if name == "etcd" {
		etcdmain.Main(append([]string{"etcd"}, os.Args[2:]...))
		return
	}
	newCommand, ok := commands[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "kube: unknown component %q\n", name)
		os.Exit(2)
	}
	command := newCommand()
	command.SetArgs(os.Args[2:])
	os.Exit(cli.Run(command))
}
