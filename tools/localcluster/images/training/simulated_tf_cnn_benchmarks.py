"""tf_cnn_benchmarks' ResNet-50 training under Horovod, with the GPU SIMULATED and the reads real.

One process per GPU (an MPI rank, started by mpirun). Each rank reads the dataset's training
files itself, shuffled, through a prefetching pool of reader threads as tf.data's private thread
pool does, one image being --image_bytes of a file. Each step takes a batch from the readers and
spends --gpu_images_per_sec's time on it where a GPU would compute, so a rank runs at the lower of
its real read rate and the simulated GPU's; an MPI allreduce ends every step, as Horovod's
gradient allreduce does, so the job goes at its slowest rank's pace.

What it prints follows tensorflow/benchmarks scripts/tf_cnn_benchmarks/benchmark_cnn.py:
every rank prints the header, its step lines (benchmark_one_step: at step 1 and every
--display_every steps, ``batch_size / mean(step times)`` with the uncertainty and jitter of
get_perf_timing) and the job-wide ``total images/sec`` (num_workers * local_step * batch_size /
elapsed). Its own lines: each rank's host in the header, and at the end what it read and how fast."""

import argparse
import os
import queue
import random
import socket
import statistics
import sys
import threading
import time

from mpi4py import MPI

# ImageNet's TFRecords (143.67 GiB) over its 1,281,167 training and 50,000 validation images.
IMAGENET_IMAGE_BYTES = int(143.67 * 1024 ** 3 / 1331167)
# The seeds' V100: 1x8 Horovod ResNet-50 from a warm cache, 9327.6 images/sec at step 1000 (seed 003).
V100_IMAGES_PER_SEC = 9327.6 / 8


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="resnet50")
    parser.add_argument("--variable_update", default="horovod")
    parser.add_argument("--data_name", default="imagenet")
    parser.add_argument("--data_dir", required=True)
    parser.add_argument("--batch_size", type=int, default=64, help="per GPU")
    parser.add_argument("--num_batches", type=int, default=100)
    parser.add_argument("--num_warmup_batches", type=int, default=1)
    parser.add_argument("--display_every", type=int, default=10)
    parser.add_argument("--datasets_num_private_threads", type=int, default=8)
    parser.add_argument("--image_bytes", type=int, default=IMAGENET_IMAGE_BYTES)
    parser.add_argument("--gpu_images_per_sec", type=float, default=V100_IMAGES_PER_SEC)
    args = parser.parse_args()
    for name in ("batch_size", "num_batches", "display_every", "datasets_num_private_threads", "image_bytes"):
        if getattr(args, name) < 1:
            parser.error("--%s=%s must be at least 1" % (name, getattr(args, name)))
    if args.gpu_images_per_sec <= 0:
        parser.error("--gpu_images_per_sec=%s must be above 0" % args.gpu_images_per_sec)
    return args


def training_files(data_dir):
    """The training split: ImagenetDataset's ``<data_dir>/train-*``, else every file under
    ``<data_dir>/train``."""
    try:
        names = sorted(os.listdir(data_dir))
    except OSError as error:
        raise SystemExit("cannot read DATA_DIR %s: %s" % (data_dir, error)) from None
    files = [os.path.join(data_dir, n) for n in names if n.startswith("train-")]
    if not files:
        for folder, _dirs, children in os.walk(os.path.join(data_dir, "train")):
            files += [os.path.join(folder, n) for n in sorted(children)]
    if not files:
        raise SystemExit("no training files in DATA_DIR %s (train-* or train/)" % data_dir)
    return files


class Readers:
    """Threads that read the files, each its share of an order shuffled anew every epoch, and
    hand over one image per --image_bytes read; the queue holds two batches ahead, as a prefetch."""

    def __init__(self, files, args, rank):
        self.files, self.args, self.rank = files, args, rank
        self.images = queue.Queue(maxsize=2 * args.batch_size)
        self.lock = threading.Lock()
        self.bytes = self.count = 0
        self.seconds = 0.0  # the threads' time inside read(), summed
        self.failure = None
        self.threads = min(args.datasets_num_private_threads, len(files))
        for index in range(self.threads):
            threading.Thread(target=self.read, args=(index,), daemon=True).start()

    def read(self, index):
        buffer = bytearray(self.args.image_bytes)
        epoch, path = 0, None
        try:
            while True:
                order = list(self.files)
                random.Random("%d/%d" % (self.rank, epoch)).shuffle(order)
                for path in order[index::self.threads]:
                    with open(path, "rb", buffering=0) as handle:
                        while True:
                            started = time.perf_counter()
                            size = handle.readinto(buffer)
                            spent = time.perf_counter() - started
                            with self.lock:
                                self.bytes += size
                                self.seconds += spent
                            if not size:
                                break
                            self.images.put(size)
                epoch += 1
        except OSError as error:
            self.failure = "reading %s: %s" % (path, error)
            self.images.put(None)

    def batch(self):
        for _image in range(self.args.batch_size):
            if self.images.get() is None:
                raise SystemExit(self.failure)
        with self.lock:
            self.count += self.args.batch_size

    def rate(self):
        """MiB/s while reading: the bytes over the threads' mean time in read()."""
        with self.lock:
            busy = self.seconds / self.threads
            return self.bytes, (self.bytes / busy / 1024 ** 2 if busy else 0.0)


def log(text):
    """Every rank prints, as log_fn does: the line and its newline in one write, so that mpirun
    (which tags whatever one read of the pipe gives it) passes it on whole."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def perf(batch_size, times):
    """get_perf_timing: the mean rate, its uncertainty and its jitter."""
    speeds = [batch_size / t for t in times]
    mean = batch_size / statistics.fmean(times)
    uncertainty = statistics.pstdev(speeds) / len(speeds) ** 0.5
    middle = statistics.median(speeds)
    jitter = 1.4826 * statistics.median(abs(s - middle) for s in speeds)
    return mean, uncertainty, jitter


def main():
    args = arguments()
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    files = training_files(args.data_dir)
    log("SIMULATED GPU: no GPU and no TensorFlow ran; each step computes for batch / %.1f images/sec. "
        "The reads of %s are real." % (args.gpu_images_per_sec, args.data_dir))
    for line in ("TensorFlow:  simulated", "Model:       %s" % args.model, "Dataset:     %s" % args.data_name,
                 "Mode:        training", "Rank:        %d of %d on %s" % (rank, size, socket.gethostname()),
                 "SingleSess:  False", "Batch size:  %d global" % (args.batch_size * size),
                 "             %d per device" % args.batch_size, "Num batches: %d" % args.num_batches,
                 "Devices:     [%s]" % ", ".join("'horovod/gpu:%d'" % i for i in range(size)),
                 "Data format: NCHW", "Optimizer:   sgd", "Variables:   %s" % args.variable_update, "=" * 10,
                 "Generating training model", "Initializing graph", "Running warm up"):
        log(line)
    readers = Readers(files, args, rank)
    compute = args.batch_size / args.gpu_images_per_sec

    def step():
        readers.batch()
        time.sleep(compute)  # the SIMULATED GPU's forward and backward pass
        comm.allreduce(1.0)  # Horovod's gradient allreduce: every rank waits for the slowest

    for _warmup in range(args.num_warmup_batches):
        step()
    log("Done warm up")
    log("Step\tImg/sec\ttotal_loss")
    times = []
    started = time.perf_counter()
    for index in range(args.num_batches):
        begun = time.perf_counter()
        step()
        times.append(time.perf_counter() - begun)
        if index == 0 or (index + 1) % args.display_every == 0:
            loss = max(1.2, 8.0 - 6.8 * (index + 1) / args.num_batches)  # SIMULATED: no model learns here
            log("%i\timages/sec: %.1f +/- %.1f (jitter = %.1f)\t%.3f" % ((index + 1,) + perf(args.batch_size, times) + (loss,)))
    elapsed = time.perf_counter() - started
    log("-" * 64)
    log("total images/sec: %.2f" % (size * args.num_batches * args.batch_size / elapsed))
    log("-" * 64)
    read, mib_per_sec = readers.rate()
    log("Input: %d images, %.1f MiB read from %d files at %.1f MiB/s" % (readers.count, read / 1024 ** 2, len(files), mib_per_sec))
    comm.Barrier()
    return 0


if __name__ == "__main__":
    sys.exit(main())
