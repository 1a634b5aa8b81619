/*
 * colormap.cu - an existing CUDA C library of device functions, written
 * for CUDA and not for kernc: colormap.kern calls it through
 * cuda.declare_device.  nvcc compiles it for the GPU (-rdc=true); for the
 * CPU backend a C++ compiler compiles this same file with
 * kernrt_cuda_compat.h (kernc --print-link-cflags colormap.kern).
 */

static __device__ __forceinline__ float clamp01(float x)
{
    return fminf(fmaxf(x, 0.0f), 1.0f);
}

/* The C ABI (abi='c'): the value is the result. */
extern "C" __device__ float smoothstep(float edge0, float edge1, float x)
{
    float t = clamp01((x - edge0) / (edge1 - edge0));
    return t * t * (3.0f - 2.0f * t);
}

/* numba's ABI: the result through the first pointer, a status returned
 * (0: no exception).  The 8-bit grey level of v in [0, 1], dithered by the
 * thread's position in its block. */
extern "C" __device__ void note(int i)
{
    (void)i;
}

extern "C" __device__ int grey_level(unsigned char *ret, float v)
{
    unsigned dither = (threadIdx.x * 7u + blockIdx.x) % 4u;
    int level = (int)(clamp01(v) * 252.0f) + (int)dither;
    *ret = (unsigned char)level;
    return 0;
}
