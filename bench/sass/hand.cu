/*
 * hand.cu - the eight kernels of bench/sass written by hand, as a CUDA
 * programmer would write them (int indices, raw pointers, sizes as
 * parameters), the reference of bench/sass/count: the SASS of kernc's
 * output is measured against these.
 */
#define TPB 16
#define RTPB 256
#define NBINS 16
#define STPB 128
#define R 3

extern "C" __global__ void saxpy(int n, const float *x, float *y, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

extern "C" __global__ void axpy2d(int rows, int cols, double *out, const double *a,
                                  const double *b, double alpha)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols)
        out[row * cols + col] = alpha * a[row * cols + col] + b[row * cols + col];
}

extern "C" __global__ void histogram(int n, const int *values, int *bins)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int b = values[i] % NBINS;
        atomicAdd(&bins[b < 0 ? b + NBINS : b], 1);
    }
}

extern "C" __global__ void fast_matmul(int n, const float *A, const float *B, float *C)
{
    __shared__ float sA[TPB][TPB];
    __shared__ float sB[TPB][TPB];
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    float tmp = 0.0f;
    for (int i = 0; i < gridDim.x; i++) {
        sA[ty][tx] = 0;
        sB[ty][tx] = 0;
        if (y < n && tx + i * TPB < n)
            sA[ty][tx] = A[y * n + tx + i * TPB];
        if (x < n && ty + i * TPB < n)
            sB[ty][tx] = B[(ty + i * TPB) * n + x];
        __syncthreads();
        for (int j = 0; j < TPB; j++)
            tmp += sA[ty][j] * sB[j][tx];
        __syncthreads();
    }
    if (y < n && x < n)
        C[y * n + x] = tmp;
}

extern "C" __global__ void block_sum(int n, const float *inp, float *partial)
{
    __shared__ float s[RTPB];
    int tx = threadIdx.x;
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + tx; i < n; i += blockDim.x * gridDim.x)
        acc += inp[i];
    s[tx] = acc;
    __syncthreads();
    for (int step = RTPB / 2; step > 0; step /= 2) {
        if (tx < step)
            s[tx] += s[tx + step];
        __syncthreads();
    }
    if (tx == 0)
        partial[blockIdx.x] = s[0];
}

extern "C" __global__ void block_scan(int n, const int *inp, int *out)
{
    __shared__ int temp[RTPB];
    int tx = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tx;
    temp[tx] = i < n ? inp[i] : 0;
    __syncthreads();
    for (int offset = 1; offset < RTPB; offset *= 2) {
        int v = 0;
        if (tx >= offset)
            v = temp[tx - offset];
        __syncthreads();
        temp[tx] += v;
        __syncthreads();
    }
    if (i < n)
        out[i] = temp[tx];
}

extern "C" __global__ void stencil1d(int n, const float *inp, float *out)
{
    __shared__ float tile[STPB + 2 * R];
    int tx = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tx;
    tile[tx + R] = i < n ? inp[i] : 0.0f;
    if (tx < R) {
        tile[tx] = i - R >= 0 ? inp[i - R] : 0.0f;
        tile[tx + STPB + R] = i + STPB < n ? inp[i + STPB] : 0.0f;
    }
    __syncthreads();
    if (i < n) {
        float s = 0.0f;
        for (int k = -R; k <= R; k++)
            s += tile[tx + R + k];
        out[i] = s;
    }
}

extern "C" __global__ void warp_sum(int n, const float *x, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0)
        out[i / 32] = v;
}
