/* grade_host_shim.c: preloaded by scripts/grade_host.py (LD_PRELOAD) into a student's host program
 * while it is graded. It does two things and changes no result of a correct program:
 *
 * - It records the OpenCL calls the grader checks into the file LAB_HOST_TRACE names, one a line:
 *     queue Q PROPERTIES                       clCreateCommandQueue(WithProperties)
 *     buffer ID FLAGS BYTES                    clCreateBuffer
 *     subbuffer ID PARENT FLAGS ORIGIN BYTES   clCreateSubBuffer
 *     arg KERNEL INDEX ID                      clSetKernelArg of a buffer
 *     launch KERNEL Q WAITS OFFSET GLOBAL      clEnqueueNDRangeKernel (dimension 0)
 *     write ID BLOCKING Q WAITS OFFSET BYTES PTR, read ID BLOCKING Q WAITS OFFSET BYTES PTR
 *     map ID FLAGS BLOCKING Q WAITS OFFSET BYTES, unmap ID Q WAITS PTR
 *     marker Q WAITS, barrier Q WAITS          clEnqueueMarker/BarrierWithWaitList
 *     returned EVENT PTR                       after each command above: the event it gave the
 *                                              program (or -) and a map's pointer (or -)
 *     flush Q, finish Q, wait EVENTS           clFlush, clFinish, clWaitForEvents
 *     status EVENT VALUE, release Q            a look at an event's status, clReleaseCommandQueue
 *   WAITS is the program's own wait list, its events joined by commas (- when empty). A
 *   `returned` line follows its command's line at once (the programs graded enqueue from one
 *   thread); a command's line is written before the call, so a call that never returns is seen.
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
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS  // clCreateCommandQueue, which 1.2 programs call
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

/* The wait list a copy or map runs with: its own where it blocks (the gates opened first, since
 * the program now waits), else the list with the queue's gate added, in OUT. */
static cl_uint held(cl_command_queue queue, cl_bool blocking, cl_uint count, const cl_event* wait,
                    cl_event* out, const cl_event** list) {
  if (blocking) {
    open_gates();
    *list = wait;
    return count;
  }
  cl_uint n = gated(queue, count, wait, out);
  *list = n ? out : NULL;
  return n;
}

/* The program's wait list as the record writes it: events joined by commas, or "-". */
static const char* waits_text(cl_uint count, const cl_event* wait, char* text, size_t size) {
  size_t used = 0;
  text[0] = '\0';
  for (cl_uint i = 0; wait && i < count && used + 24 < size; ++i)
    used += (size_t)snprintf(text + used, size - used, "%s%p", i ? "," : "", (void*)wait[i]);
  return used ? text : "-";
}
#define WAITS(count, wait) waits_text(count, wait, waits_buffer, sizeof waits_buffer)

/* After a command: the event it gave the program and a map's pointer. */
static void returned(const cl_event* event, const void* pointer) {
  char e[32] = "-", p[32] = "-";
  if (event && *event) snprintf(e, sizeof e, "%p", (void*)*event);
  if (pointer) snprintf(p, sizeof p, "%p", pointer);
  note("returned %s %s", e, p);
}

CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueue(cl_context context,
                                                               cl_device_id device,
                                                               cl_command_queue_properties props,
                                                               cl_int* error) {
  cl_command_queue queue = REAL(clCreateCommandQueue)(context, device, props, error);
  note("queue %p %llu", (void*)queue, (unsigned long long)props);
  return queue;
}

CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueueWithProperties(
    cl_context context, cl_device_id device, const cl_queue_properties* properties, cl_int* error) {
  cl_command_queue queue =
      REAL(clCreateCommandQueueWithProperties)(context, device, properties, error);
  unsigned long long props = 0;
  for (const cl_queue_properties* p = properties; p && p[0]; p += 2)
    if (p[0] == CL_QUEUE_PROPERTIES) props = (unsigned long long)p[1];
  note("queue %p %llu", (void*)queue, props);
  return queue;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateSubBuffer(cl_mem parent, cl_mem_flags flags,
                                                  cl_buffer_create_type type, const void* info,
                                                  cl_int* error) {
  cl_mem buffer = REAL(clCreateSubBuffer)(parent, flags, type, info, error);
  const cl_buffer_region* region = type == CL_BUFFER_CREATE_TYPE_REGION ? info : NULL;
  note("subbuffer %p %p %llu %zu %zu", (void*)buffer, (void*)parent, (unsigned long long)flags,
       region ? region->origin : 0, region ? region->size : 0);
  return buffer;
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
  char waits_buffer[MAX_WAIT * 20];
  note("launch %p %p %s %zu %zu", (void*)kernel, (void*)queue, WAITS(count, wait),
       offset && dims ? offset[0] : 0, global && dims ? global[0] : 0);
  cl_uint n = gated(queue, count, wait, list);
  cl_int status = REAL(clEnqueueNDRangeKernel)(queue, kernel, dims, offset, global, local, n,
                                               n ? list : NULL, event);
  returned(event, NULL);
  return status;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer,
                                                    cl_bool blocking, size_t offset, size_t size,
                                                    void* ptr, cl_uint count, const cl_event* wait,
                                                    cl_event* event) {
  char waits_buffer[MAX_WAIT * 20];
  note("read %p %d %p %s %zu %zu %p", (void*)buffer, blocking ? 1 : 0, (void*)queue,
       WAITS(count, wait), offset, size, ptr);
  cl_event own[MAX_WAIT];
  const cl_event* list;
  cl_uint n = held(queue, blocking, count, wait, own, &list);
  cl_int status =
      REAL(clEnqueueReadBuffer)(queue, buffer, blocking, offset, size, ptr, n, list, event);
  returned(event, NULL);
  return status;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer,
                                                     cl_bool blocking, size_t offset, size_t size,
                                                     const void* ptr, cl_uint count,
                                                     const cl_event* wait, cl_event* event) {
  char waits_buffer[MAX_WAIT * 20];
  note("write %p %d %p %s %zu %zu %p", (void*)buffer, blocking ? 1 : 0, (void*)queue,
       WAITS(count, wait), offset, size, ptr);
  cl_event own[MAX_WAIT];
  const cl_event* list;
  cl_uint n = held(queue, blocking, count, wait, own, &list);
  cl_int status =
      REAL(clEnqueueWriteBuffer)(queue, buffer, blocking, offset, size, ptr, n, list, event);
  returned(event, NULL);
  return status;
}

CL_API_ENTRY void* CL_API_CALL clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer,
                                                  cl_bool blocking, cl_map_flags flags,
                                                  size_t offset, size_t size, cl_uint count,
                                                  const cl_event* wait, cl_event* event,
                                                  cl_int* error) {
  char waits_buffer[MAX_WAIT * 20];
  note("map %p %llu %d %p %s %zu %zu", (void*)buffer, (unsigned long long)flags, blocking ? 1 : 0,
       (void*)queue, WAITS(count, wait), offset, size);
  cl_event own[MAX_WAIT];
  const cl_event* list;
  cl_uint n = held(queue, blocking, count, wait, own, &list);
  void* mapped =
      REAL(clEnqueueMapBuffer)(queue, buffer, blocking, flags, offset, size, n, list, event, error);
  returned(event, mapped);
  return mapped;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueUnmapMemObject(cl_command_queue queue, cl_mem memobj,
                                                        void* ptr, cl_uint count,
                                                        const cl_event* wait, cl_event* event) {
  char waits_buffer[MAX_WAIT * 20];
  note("unmap %p %p %s %p", (void*)memobj, (void*)queue, WAITS(count, wait), ptr);
  cl_event list[MAX_WAIT];
  cl_uint n = gated(queue, count, wait, list);
  cl_int status = REAL(clEnqueueUnmapMemObject)(queue, memobj, ptr, n, n ? list : NULL, event);
  returned(event, NULL);
  return status;
}

/* Markers and barriers are recorded, not held back: each waits for the commands before it (or
 * its list), which are held back already. */
CL_API_ENTRY cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue queue, cl_uint count,
                                                            const cl_event* wait, cl_event* event) {
  char waits_buffer[MAX_WAIT * 20];
  note("marker %p %s", (void*)queue, WAITS(count, wait));
  cl_int status = REAL(clEnqueueMarkerWithWaitList)(queue, count, wait, event);
  returned(event, NULL);
  return status;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueBarrierWithWaitList(cl_command_queue queue, cl_uint count,
                                                             const cl_event* wait,
                                                             cl_event* event) {
  char waits_buffer[MAX_WAIT * 20];
  note("barrier %p %s", (void*)queue, WAITS(count, wait));
  cl_int status = REAL(clEnqueueBarrierWithWaitList)(queue, count, wait, event);
  returned(event, NULL);
  return status;
}

CL_API_ENTRY cl_int CL_API_CALL clFlush(cl_command_queue queue) {
  note("flush %p", (void*)queue);
  return REAL(clFlush)(queue);
}

CL_API_ENTRY cl_int CL_API_CALL clFinish(cl_command_queue queue) {
  note("finish %p", (void*)queue);
  open_gates();
  return REAL(clFinish)(queue);
}

CL_API_ENTRY cl_int CL_API_CALL clWaitForEvents(cl_uint count, const cl_event* events) {
  char waits_buffer[MAX_WAIT * 20];
  note("wait %s", WAITS(count, events));
  open_gates();
  return REAL(clWaitForEvents)(count, events);
}

CL_API_ENTRY cl_int CL_API_CALL clGetEventInfo(cl_event event, cl_event_info name, size_t size,
                                               void* value, size_t* size_ret) {
  if (name != CL_EVENT_COMMAND_EXECUTION_STATUS)
    return REAL(clGetEventInfo)(event, name, size, value, size_ret);
  open_gates();
  cl_int status = REAL(clGetEventInfo)(event, name, size, value, size_ret);
  cl_int execution = 1;
  if (status == CL_SUCCESS && value && size >= sizeof execution)
    memcpy(&execution, value, sizeof execution);
  note("status %p %d", (void*)event, (int)execution);
  return status;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseCommandQueue(cl_command_queue queue) {
  note("release %p", (void*)queue);
  open_gates();
  return REAL(clReleaseCommandQueue)(queue);
}
