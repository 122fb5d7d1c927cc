// workload.cu — a CUDA program that allocates known amounts per phase, for the
// real-GPU check of `measure` and `vramsheet probe`.
//
//   workload [--mib N] [--oom]
//
// Phases (written on VRAMSHEET_PHASE_FD when set):
//   context   cudaFree(0) creates the CUDA context, nothing allocated
//   load      holds 4 N MiB
//   prefill   holds 4 N + 2 N MiB
//   generate  holds 6 N MiB, plus 2 N MiB for 300 ms, freed again
//   (--oom)   asks for more than the device has: "CUDA out of memory", exit 1
// N is 512 by default. After each phase it writes `counter workload.held BYTES`
// (what it holds through cudaMalloc) and `counter cuda.used BYTES`
// (total - free from cudaMemGetInfo), both with the device's UUID, and prints
// the same on stdout. Every allocation is written with cudaMemset so that the
// memory is really committed. No kernels: it builds for any GPU.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>

static int phase_fd = -1;
static char uuid[64] = "";
static size_t held = 0;
static std::vector<void *> blocks;

static void line(const char *text)
{
    if (phase_fd < 0)
        return;
    size_t n = strlen(text);
    if (write(phase_fd, text, n) != (ssize_t)n)
        phase_fd = -1;
}

static void phase(const char *name)
{
    char buf[128];
    snprintf(buf, sizeof buf, "phase %s\n", name);
    line(buf);
    printf("workload: phase %s\n", name);
    fflush(stdout);
}

static void report(void)
{
    size_t free_b = 0, total_b = 0;
    char buf[256];
    cudaMemGetInfo(&free_b, &total_b);
    snprintf(buf, sizeof buf, "counter workload.held %zu uuid=%s\n", held, uuid);
    line(buf);
    snprintf(buf, sizeof buf, "counter cuda.used %zu uuid=%s\n", total_b - free_b, uuid);
    line(buf);
    printf("workload: held %zu B; cudaMemGetInfo total %zu B, free %zu B, used %zu B\n", held,
           total_b, free_b, total_b - free_b);
    fflush(stdout);
}

static void *take(size_t bytes)
{
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e != cudaSuccess) {
        fprintf(stderr, "workload: CUDA out of memory allocating %zu B (%s: %s)\n", bytes,
                cudaGetErrorName(e), cudaGetErrorString(e));
        exit(1);
    }
    cudaMemset(p, 0x5a, bytes);
    cudaDeviceSynchronize();
    held += bytes;
    blocks.push_back(p);
    return p;
}

int main(int argc, char **argv)
{
    size_t mib = 512;
    int oom = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mib") && i + 1 < argc)
            mib = (size_t)strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--oom"))
            oom = 1;
    }
    const size_t n = mib << 20;
    const char *fd = getenv("VRAMSHEET_PHASE_FD");
    if (fd && *fd)
        phase_fd = atoi(fd);

    phase("context");
    cudaError_t e = cudaFree(0);
    if (e != cudaSuccess) {
        fprintf(stderr, "workload: no CUDA device (%s)\n", cudaGetErrorString(e));
        return 2;
    }
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
    snprintf(uuid, sizeof uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    printf("workload: %s %s, %zu MiB per unit\n", prop.name, uuid, mib);
    usleep(300000);
    report();

    phase("load");
    take(4 * n);
    usleep(300000);
    report();

    phase("prefill");
    take(2 * n);
    usleep(300000);
    report();

    phase("generate");
    {
        void *spike = NULL;
        if (cudaMalloc(&spike, 2 * n) == cudaSuccess) {
            cudaMemset(spike, 0x5a, 2 * n);
            cudaDeviceSynchronize();
            held += 2 * n;
            report();
            usleep(300000);
            cudaFree(spike);
            held -= 2 * n;
        }
    }
    usleep(200000);
    report();

    if (oom) {
        phase("oom");
        size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        take(total_b + ((size_t)1 << 30));
    }
    for (void *p : blocks)
        cudaFree(p);
    return 0;
}
