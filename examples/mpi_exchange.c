/*
 * mpi_exchange.c - a distributed run with MPI: every rank picks a device
 * (rank modulo the device count), fills an array on it with rank + 1 and
 * doubles it with double.kern's kernel, then the ranks of a ring swap
 * their device buffers with MPI_Sendrecv (rank r sends to r + 1 and
 * receives from r - 1), double what they received and check it.
 *
 * The buffers go to MPI as they are where MPI can read them: on the cpu
 * backend device memory is host memory, and a CUDA-aware MPI (Open MPI's
 * MPIX_Query_cuda_support) takes device pointers; otherwise they are staged
 * through pinned host buffers (always with --staged).  Built with mpicc
 * and run by tests/mpi.sh (mpirun -np 2) where an MPI is installed.
 */
#include <stdio.h>
#include <string.h>

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#include <kernrt.h>
#include "double.kern.h"

#define N 4096

/* Whether MPI may be handed this device's pointers. */
static int mpi_takes_device_pointers(int dev)
{
    krt_device_props p;

    if (krt_get_device_props(&p, dev) == KRT_OK && p.is_cpu)
        return 1;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return 0;
#endif
}

static int run(int rank, int size, int staged, int *bad, int *direct)
{
    static float host[N];
    krt_array mine, theirs;
    float *send = NULL, *recv = NULL;
    int ndev = 0, dev, i, to = (rank + 1) % size, from = (rank + size - 1) % size;
    int status = KRT_OK;

    KRT_TRY(krt_device_count(&ndev));
    dev = rank % ndev;
    KRT_TRY(krt_set_device(dev));
    for (i = 0; i < N; i++)
        host[i] = (float)(rank + 1);
    KRT_TRY(krt_to_device(&mine, host, KRT_FLOAT32, 1, KRT_SHAPE(N), NULL));
    KRT_TRY(krt_alloc(&theirs, KRT_FLOAT32, 1, KRT_SHAPE(N)));
    KRT_TRY(double_it(krt_grid1((N + 255) / 256, 256), mine));
    /* The kernel must be done before MPI reads its output. */
    KRT_TRY(krt_synchronize());

    *direct = !staged && mpi_takes_device_pointers(dev);
    if (*direct) {
        send = krt_device_ptr(mine);
        recv = krt_device_ptr(theirs);
    } else {
        KRT_TRY(krt_host_alloc((void **)&send, N * sizeof(float)));
        KRT_TRY(krt_host_alloc((void **)&recv, N * sizeof(float)));
        KRT_TRY(krt_copy_to_host(send, mine, NULL));
    }
    if (MPI_Sendrecv(send, N, MPI_FLOAT, to, 0, recv, N, MPI_FLOAT, from, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        status = KRT_EIO;
    if (status == KRT_OK && !*direct)
        status = krt_copy_to_device(theirs, recv, NULL);
    if (status == KRT_OK)
        status = double_it(krt_grid1((N + 255) / 256, 256), theirs);
    if (status == KRT_OK)
        status = krt_copy_to_host(host, theirs, NULL);
    for (i = 0; status == KRT_OK && i < N; i++)
        if (host[i] != 4.0f * (float)(from + 1)) {
            if (++*bad <= 5)
                fprintf(stderr, "mpi_exchange: rank %d: element %d is %g, want %g\n",
                        rank, i, host[i], 4.0f * (float)(from + 1));
        }
    if (!*direct) {
        krt_host_free(send);
        krt_host_free(recv);
    }
    krt_free(mine);
    krt_free(theirs);
    return status;
}

int main(int argc, char **argv)
{
    int rank = 0, size = 1, bad = 0, direct = 0, status, all_bad = 0, dev = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    status = run(rank, size, argc > 1 && strcmp(argv[1], "--staged") == 0, &bad,
                 &direct);
    if (status != KRT_OK) {
        fprintf(stderr, "mpi_exchange: rank %d: %s: %s\n", rank,
                krt_status_name(status), krt_last_error());
        bad++;
    }
    krt_get_device(&dev);
    printf("mpi_exchange: rank %d of %d on %s device %d (%s): %s\n", rank, size,
           krt_backend_name(), dev, direct ? "device buffers to MPI" : "staged",
           bad ? "FAILED" : "ok");
    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all_bad != 0;
}
