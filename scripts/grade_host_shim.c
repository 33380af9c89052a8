/* grade_host_shim.c: preloaded by scripts/grade_host.py (LD_PRELOAD) into a student's host program
 * while it is graded. It does two things and changes no result of a correct program:
 *
 * - It records the OpenCL calls the grader checks into the file LAB_HOST_TRACE names, one a line:
 *   `buffer ID FLAGS BYTES`, `arg KERNEL INDEX ID` (a buffer argument), `launch KERNEL`,
 *   `write ID BLOCKING`, `read ID BLOCKING`, `map ID FLAGS BLOCKING`, `unmap ID`, `sync`.
 * - It holds back every command enqueued without blocking (a kernel, a read, a map, ...) until
 *   the program waits: clFinish, clWaitForEvents, a blocking call, a look at an event, or the
 *   queue's release. OpenCL lets a runtime start a command that late, so a correct program sees
 *   the same results; one that uses c before waiting for it sees c as it was, every time, instead
 *   of whatever a race leaves there.
 *
 * Built by the grader: cc -shared -fPIC grade_host_shim.c -o shim.so -ldl
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GATES 64
#define MAX_WAIT 256

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE* trace;
static struct {
  cl_command_queue queue;
  cl_event gate;
} gates[MAX_GATES];

static void* real(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (!f) {
    fprintf(stderr, "grade_host_shim: no %s in the OpenCL library\n", name);
    abort();
  }
  return f;
}
#define REAL(name) ((__typeof__(&name))real(#name))

static void note(const char* format, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static void note(const char* format, ...) {
  pthread_mutex_lock(&lock);
  if (!trace) {
    const char* path = getenv("LAB_HOST_TRACE");
    trace = fopen(path ? path : "/dev/null", "a");
  }
  if (trace) {
    va_list args;
    va_start(args, format);
    vfprintf(trace, format, args);
    va_end(args);
    fputc('\n', trace);
    fflush(trace);
  }
  pthread_mutex_unlock(&lock);
}

/* The gate of `queue`: a user event every held-back command waits for. */
static cl_event gate_of(cl_command_queue queue) {
  cl_event gate = NULL;
  pthread_mutex_lock(&lock);
  int free_slot = -1;
  for (int i = 0; i < MAX_GATES; ++i) {
    if (gates[i].queue == queue && gates[i].gate) gate = gates[i].gate;
    if (!gates[i].gate && free_slot < 0) free_slot = i;
  }
  if (!gate && free_slot >= 0) {
    cl_context context = NULL;
    REAL(clGetCommandQueueInfo)(queue, CL_QUEUE_CONTEXT, sizeof context, &context, NULL);
    cl_int error = CL_SUCCESS;
    gate = REAL(clCreateUserEvent)(context, &error);
    if (error != CL_SUCCESS) gate = NULL;
    if (gate) {
      gates[free_slot].queue = queue;
      gates[free_slot].gate = gate;
    }
  }
  pthread_mutex_unlock(&lock);
  return gate;
}

/* Opens every gate: the held-back commands may run. */
static void open_gates(void) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < MAX_GATES; ++i) {
    if (gates[i].gate) {
      REAL(clSetUserEventStatus)(gates[i].gate, CL_COMPLETE);
      REAL(clReleaseEvent)(gates[i].gate);
      gates[i].gate = NULL;
      gates[i].queue = NULL;
    }
  }
  pthread_mutex_unlock(&lock);
}

__attribute__((destructor)) static void at_exit(void) { open_gates(); }

/* WAIT with the queue's gate added: the list a held-back command waits for. */
static cl_uint gated(cl_command_queue queue, cl_uint count, const cl_event* wait, cl_event* out) {
  cl_uint n = 0;
  for (cl_uint i = 0; i < count && n < MAX_WAIT - 1; ++i) out[n++] = wait[i];
  cl_event gate = gate_of(queue);
  if (gate) out[n++] = gate;
  return n;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size,
                                               void* host_ptr, cl_int* error) {
  cl_mem buffer = REAL(clCreateBuffer)(context, flags, size, host_ptr, error);
  note("buffer %p %llu %zu", (void*)buffer, (unsigned long long)flags, size);
  return buffer;
}

CL_API_ENTRY cl_int CL_API_CALL clSetKernelArg(cl_kernel kernel, cl_uint index, size_t size,
                                               const void* value) {
  if (size == sizeof(cl_mem) && value)
    note("arg %p %u %p", (void*)kernel, index, *(void* const*)value);
  return REAL(clSetKernelArg)(kernel, index, size, value);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel,
                                                       cl_uint dims, const size_t* offset,
                                                       const size_t* global, const size_t* local,
                                                       cl_uint count, const cl_event* wait,
                                                       cl_event* event) {
  cl_event list[MAX_WAIT];
  note("launch %p", (void*)kernel);
  cl_uint n = gated(queue, count, wait, list);
  return REAL(clEnqueueNDRangeKernel)(queue, kernel, dims, offset, global, local, n,
                                      n ? list : NULL, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer,
                                                    cl_bool blocking, size_t offset, size_t size,
                                                    void* ptr, cl_uint count, const cl_event* wait,
                                                    cl_event* event) {
  note("read %p %d", (void*)buffer, blocking ? 1 : 0);
  if (blocking) {
    open_gates();
    return REAL(clEnqueueReadBuffer)(queue, buffer, blocking, offset, size, ptr, count, wait,
                                     event);
  }
  cl_event list[MAX_WAIT];
  cl_uint n = gated(queue, count, wait, list);
  return REAL(clEnqueueReadBuffer)(queue, buffer, blocking, offset, size, ptr, n, n ? list : NULL,
                                   event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer,
                                                     cl_bool blocking, size_t offset, size_t size,
                                                     const void* ptr, cl_uint count,
                                                     const cl_event* wait, cl_event* event) {
  note("write %p %d", (void*)buffer, blocking ? 1 : 0);
  if (blocking) {
    open_gates();
    return REAL(clEnqueueWriteBuffer)(queue, buffer, blocking, offset, size, ptr, count, wait,
                                      event);
  }
  cl_event list[MAX_WAIT];
  cl_uint n = gated(queue, count, wait, list);
  return REAL(clEnqueueWriteBuffer)(queue, buffer, blocking, offset, size, ptr, n, n ? list : NULL,
                                    event);
}

CL_API_ENTRY void* CL_API_CALL clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer,
                                                  cl_bool blocking, cl_map_flags flags,
                                                  size_t offset, size_t size, cl_uint count,
                                                  const cl_event* wait, cl_event* event,
                                                  cl_int* error) {
  note("map %p %llu %d", (void*)buffer, (unsigned long long)flags, blocking ? 1 : 0);
  if (blocking) {
    open_gates();
    return REAL(clEnqueueMapBuffer)(queue, buffer, blocking, flags, offset, size, count, wait,
                                    event, error);
  }
  cl_event list[MAX_WAIT];
  cl_uint n = gated(queue, count, wait, list);
  return REAL(clEnqueueMapBuffer)(queue, buffer, blocking, flags, offset, size, n, n ? list : NULL,
                                  event, error);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueUnmapMemObject(cl_command_queue queue, cl_mem memobj,
                                                        void* ptr, cl_uint count,
                                                        const cl_event* wait, cl_event* event) {
  note("unmap %p", (void*)memobj);
  cl_event list[MAX_WAIT];
  cl_uint n = gated(queue, count, wait, list);
  return REAL(clEnqueueUnmapMemObject)(queue, memobj, ptr, n, n ? list : NULL, event);
}

CL_API_ENTRY cl_int CL_API_CALL clFinish(cl_command_queue queue) {
  note("sync");
  open_gates();
  return REAL(clFinish)(queue);
}

CL_API_ENTRY cl_int CL_API_CALL clWaitForEvents(cl_uint count, const cl_event* events) {
  note("sync");
  open_gates();
  return REAL(clWaitForEvents)(count, events);
}

CL_API_ENTRY cl_int CL_API_CALL clGetEventInfo(cl_event event, cl_event_info name, size_t size,
                                               void* value, size_t* size_ret) {
  if (name == CL_EVENT_COMMAND_EXECUTION_STATUS) {
    note("sync");
    open_gates();
  }
  return REAL(clGetEventInfo)(event, name, size, value, size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseCommandQueue(cl_command_queue queue) {
  note("release");
  open_gates();
  return REAL(clReleaseCommandQueue)(queue);
}
