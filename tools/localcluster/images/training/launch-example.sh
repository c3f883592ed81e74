#!/bin/sh
# ./launch-example.sh WORKERS GPUS_PER_WORKER: the seeds' launch script's interface. mpirun starts
# one rank per GPU on the workers of mpi-operator's hostfile (OMPI_MCA_orte_default_hostfile, its
# slots the MPIJob's slotsPerWorker), over SSH, with the flags of mpi-operator's v2beta1
# tensorflow-benchmarks example. The job's settings come from the environment, as the seeds set
# them: DATA_DIR, num_batch, datasets_num_private_threads; and, for the local scale, batch_size,
# display_every, image_bytes and gpu_images_per_sec (the SIMULATED GPU's rate).
set -eu
[ $# -eq 2 ] || { echo "usage: $0 WORKERS GPUS_PER_WORKER" >&2; exit 2; }
: "${DATA_DIR:?DATA_DIR must name the directory of the dataset in the workers}"
exec mpirun -np "$(($1 * $2))" --tag-output -bind-to none -map-by slot -mca pml ob1 -mca btl ^openib \
  python3 -u /horovod-demo/tensorflow-demo/simulated_tf_cnn_benchmarks.py \
  --model=resnet50 --variable_update=horovod --data_name=imagenet --data_dir="$DATA_DIR" \
  --batch_size="${batch_size:-256}" --num_batches="${num_batch:-1000}" --display_every="${display_every:-100}" \
  --datasets_num_private_threads="${datasets_num_private_threads:-8}" \
  ${image_bytes:+--image_bytes="$image_bytes"} ${gpu_images_per_sec:+--gpu_images_per_sec="$gpu_images_per_sec"}
