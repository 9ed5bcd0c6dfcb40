// A UDP receiver for high datagram rates (StatsD). A thread of its own drains the socket
// with recvmmsg() (Linux; recv() elsewhere) into chunks of memory that JavaScript already
// holds, and wakes the event loop once per filled chunk rather than once per datagram.
//
// Node's dgram socket is read by the event loop itself, with an allocation, a Buffer, an
// rinfo object and a callback per datagram; and whenever the loop is busy for longer than
// the kernel's receive buffer lasts (about 40 ms at 70,000 datagrams/s with 8 MiB: a JIT
// compile, a flush, a large request), the kernel drops what does not fit. Here the thread
// keeps draining while JavaScript is busy, into CHUNKS * CHUNK_BYTES more of buffer.
//
// open(host, port, ipv6, recvBufferBytes, onChunk) -> receiver; receiver.chunks holds
//   CHUNKS Uint8Arrays. onChunk(index, end): chunks[index][0, end) holds datagrams as
//   records: a 4-byte little-endian length, then that many bytes. The chunk is reused once
//   onChunk returns.
// localPort(receiver), recvBufferSize(receiver), close(receiver): close() hands over what
//   the thread has read and what the socket still holds before it returns (unless called
//   from inside onChunk), then frees the port.
#define NAPI_VERSION 8
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <node_api.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#define SLOTS 64
#define SLOT_BYTES 65536
#define CHUNKS 16
/** Larger than a record of the largest datagram (4 + SLOT_BYTES), so every datagram fits. */
#define CHUNK_BYTES (1024 * 1024)

typedef struct receiver {
  napi_env env;
  napi_ref callback;
  napi_ref resource;
  napi_async_context async;
  uv_async_t wake_js;
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t freed;
  int fd;
  int wake_pipe[2];
  volatile int stop;
  int closed;
  int delivering;

  uint8_t *chunk[CHUNKS];
  uint32_t used[CHUNKS];
  /** Chunks filled and not yet handed to JavaScript, oldest first (a ring of indexes). */
  int ready[CHUNKS];
  int ready_head, ready_count;
  /** Chunks free for the thread to fill. */
  int free_list[CHUNKS];
  int free_count;
  /** The chunk the thread is filling, or -1. Only the thread touches it. */
  int current;
  /** The thread kept a chunk with datagrams because JavaScript was busy; it wants a nudge
   * (through wake_pipe) once JavaScript has caught up. */
  int held;

  uint8_t *staging;
#ifdef __linux__
  struct mmsghdr msgs[SLOTS];
  struct iovec iov[SLOTS];
#endif
} receiver_t;

#define CHECK(env, call)                                            \
  do {                                                              \
    if ((call) != napi_ok) {                                        \
      napi_throw_error((env), NULL, "udp-batch: " #call " failed"); \
      return NULL;                                                  \
    }                                                               \
  } while (0)

static napi_value throw_errno(napi_env env, const char *op, int err, const char *host,
                              int port) {
  char message[256];
  const char *code = uv_err_name(uv_translate_sys_error(err));
  snprintf(message, sizeof message, "%s %s %s:%d", op, code, host, port);
  napi_throw_error(env, code, message);
  return NULL;
}

// ---- the reading thread ----

/** Hands the current chunk to JavaScript (lock held). */
static void publish_locked(receiver_t *r) {
  if (r->current < 0 || r->used[r->current] == 0) return;
  r->ready[(r->ready_head + r->ready_count) % CHUNKS] = r->current;
  r->ready_count++;
  r->current = -1;
  uv_async_send(&r->wake_js);
}

/** Makes sure a chunk with room for `bytes` more is current; waits while none is free. */
static int room_for(receiver_t *r, uint32_t bytes) {
  if (r->current >= 0 && r->used[r->current] + bytes <= CHUNK_BYTES) return 1;
  pthread_mutex_lock(&r->lock);
  publish_locked(r);
  // Every chunk is waiting for JavaScript: stop reading; the kernel's buffer takes over.
  while (r->free_count == 0) {
    if (r->stop) {
      pthread_mutex_unlock(&r->lock);
      return 0;
    }
    pthread_cond_wait(&r->freed, &r->lock);
  }
  r->current = r->free_list[--r->free_count];
  r->used[r->current] = 0;
  pthread_mutex_unlock(&r->lock);
  return 1;
}

static int append(receiver_t *r, const uint8_t *bytes, uint32_t length) {
  if (!room_for(r, 4 + length)) return 0;
  uint8_t *at = r->chunk[r->current] + r->used[r->current];
  at[0] = (uint8_t)length;
  at[1] = (uint8_t)(length >> 8);
  at[2] = (uint8_t)(length >> 16);
  at[3] = (uint8_t)(length >> 24);
  memcpy(at + 4, bytes, length);
  r->used[r->current] += 4 + length;
  return 1;
}

/** Reads what the socket holds, up to SLOTS datagrams; returns how many (0: none). */
static int read_batch(receiver_t *r) {
#ifdef __linux__
  for (;;) {
    int n = recvmmsg(r->fd, r->msgs, SLOTS, MSG_DONTWAIT, NULL);
    if (n >= 0) {
      for (int i = 0; i < n; i++) {
        if (!append(r, r->staging + (size_t)i * SLOT_BYTES, r->msgs[i].msg_len)) return 0;
      }
      return n;
    }
    if (errno == EINTR) continue;
    return 0;  // EAGAIN: drained; or an ICMP error queued on the socket, consumed by this call
  }
#else
  int n = 0;
  while (n < SLOTS) {
    ssize_t got = recv(r->fd, r->staging, SLOT_BYTES, MSG_DONTWAIT);
    if (got < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (!append(r, r->staging, (uint32_t)got)) return 0;
    n++;
  }
  return n;
#endif
}

static void *reader_main(void *arg) {
  receiver_t *r = (receiver_t *)arg;
  struct pollfd fds[2] = {{r->fd, POLLIN, 0}, {r->wake_pipe[0], POLLIN, 0}};
  while (!r->stop) {
    int n = read_batch(r);
    if (r->stop) break;
    if (n == SLOTS) continue;
    // Drained. Hand over what there is at once if JavaScript is waiting for work; if it is
    // still busy, keep filling the chunk so that chunks go over full.
    pthread_mutex_lock(&r->lock);
    if (r->ready_count == 0) publish_locked(r);
    r->held = r->current >= 0 && r->used[r->current] > 0;
    pthread_mutex_unlock(&r->lock);
    if (n > 0) {
      // Traffic is flowing: let a batch gather instead of waking per datagram. The kernel's
      // buffer holds tens of milliseconds of it.
      struct timespec pause = {0, 500 * 1000};
      nanosleep(&pause, NULL);
      continue;
    }
    if (poll(fds, 2, -1) > 0 && (fds[1].revents & POLLIN)) {
      char nudges[64];
      while (read(r->wake_pipe[0], nudges, sizeof nudges) > 0) {
      }
    }
  }
  return NULL;
}

// ---- the JavaScript side ----

static void deliver(receiver_t *r, int index) {
  napi_env env = r->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  napi_value callback, resource, argv[2], result;
  napi_get_reference_value(env, r->callback, &callback);
  napi_get_reference_value(env, r->resource, &resource);
  napi_create_int32(env, index, &argv[0]);
  napi_create_uint32(env, r->used[index], &argv[1]);
  napi_status status = napi_make_callback(env, r->async, resource, callback, 2, argv, &result);
  if (status == napi_pending_exception) {
    napi_value error;
    napi_get_and_clear_last_exception(env, &error);
    napi_fatal_exception(env, error);
  }
  napi_close_handle_scope(env, scope);
}

/** Hands every ready chunk to JavaScript, oldest first, and gives each back to the thread. */
static void drain(receiver_t *r) {
  if (r->delivering) return;
  r->delivering = 1;
  while (!r->closed) {
    pthread_mutex_lock(&r->lock);
    if (r->ready_count == 0) {
      // Caught up: the thread may hold a chunk for us.
      int nudge = r->held;
      r->held = 0;
      pthread_mutex_unlock(&r->lock);
      if (nudge) {
        ssize_t ignored = write(r->wake_pipe[1], "n", 1);
        (void)ignored;
      }
      break;
    }
    int index = r->ready[r->ready_head];
    r->ready_head = (r->ready_head + 1) % CHUNKS;
    r->ready_count--;
    pthread_mutex_unlock(&r->lock);

    deliver(r, index);

    pthread_mutex_lock(&r->lock);
    r->free_list[r->free_count++] = index;
    pthread_cond_signal(&r->freed);
    pthread_mutex_unlock(&r->lock);
  }
  r->delivering = 0;
}

static void on_wake_js(uv_async_t *handle) { drain((receiver_t *)handle->data); }

static void on_async_closed(uv_handle_t *handle) {
  receiver_t *r = (receiver_t *)handle->data;
  pthread_mutex_destroy(&r->lock);
  pthread_cond_destroy(&r->freed);
  free(r->staging);
  free(r);
}

/** Stops the thread and closes the socket; `hand_over` delivers what it had read first. */
static void shut(receiver_t *r, int hand_over) {
  if (r->closed) return;
  r->stop = 1;
  pthread_mutex_lock(&r->lock);
  pthread_cond_signal(&r->freed);
  pthread_mutex_unlock(&r->lock);
  ssize_t ignored = write(r->wake_pipe[1], "x", 1);
  (void)ignored;
  pthread_join(r->thread, NULL);
  if (hand_over && !r->delivering) {
    // What the thread read, then what the socket still holds, on this thread: every chunk
    // is free at the start of a round, and a round needs at most five.
    for (int round = 0; round < 1024; round++) {
      int n = read_batch(r);
      pthread_mutex_lock(&r->lock);
      publish_locked(r);
      pthread_mutex_unlock(&r->lock);
      drain(r);
      if (n < SLOTS) break;
    }
  }
  close(r->fd);
  close(r->wake_pipe[0]);
  close(r->wake_pipe[1]);
  r->closed = 1;
  napi_delete_reference(r->env, r->callback);
  napi_delete_reference(r->env, r->resource);
  napi_async_destroy(r->env, r->async);
  uv_close((uv_handle_t *)&r->wake_js, on_async_closed);
}

static void on_env_cleanup(void *arg) { shut((receiver_t *)arg, 0); }

static receiver_t *unwrap(napi_env env, napi_value object) {
  void *r = NULL;
  if (napi_unwrap(env, object, &r) != napi_ok || r == NULL) {
    napi_throw_type_error(env, NULL, "udp-batch: not an open receiver");
    return NULL;
  }
  return (receiver_t *)r;
}

static void on_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)data;
  (void)hint;
  // The receiver is freed by close() or the env's cleanup, never by the GC: a socket that
  // is still open keeps receiving whether or not JavaScript holds its object.
}

static napi_value js_open(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 5) {
    napi_throw_type_error(env, NULL, "udp-batch: open(host, port, ipv6, recvBufferBytes, onChunk)");
    return NULL;
  }
  char host[64];
  size_t host_len = 0;
  if (napi_get_value_string_utf8(env, argv[0], host, sizeof host, &host_len) != napi_ok) {
    napi_throw_type_error(env, NULL, "udp-batch: host must be an IP address string");
    return NULL;
  }
  int32_t port = 0, recv_buffer = 0;
  bool ipv6 = false;
  CHECK(env, napi_get_value_int32(env, argv[1], &port));
  CHECK(env, napi_get_value_bool(env, argv[2], &ipv6));
  CHECK(env, napi_get_value_int32(env, argv[3], &recv_buffer));
  napi_valuetype type;
  CHECK(env, napi_typeof(env, argv[4], &type));
  if (type != napi_function) {
    napi_throw_type_error(env, NULL, "udp-batch: onChunk must be a function");
    return NULL;
  }

  struct sockaddr_storage address;
  memset(&address, 0, sizeof address);
  int parsed = ipv6 ? uv_ip6_addr(host, port, (struct sockaddr_in6 *)&address)
                    : uv_ip4_addr(host, port, (struct sockaddr_in *)&address);
  if (parsed != 0) {
    napi_throw_type_error(env, "ERR_INVALID_IP_ADDRESS", "udp-batch: host is not an IP address");
    return NULL;
  }
  int fd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) return throw_errno(env, "socket", errno, host, port);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  if (recv_buffer > 0) {
    // Capped by net.core.rmem_max; the caller reads back what was granted.
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &recv_buffer, sizeof recv_buffer);
  }
  socklen_t length = ipv6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
  if (bind(fd, (struct sockaddr *)&address, length) != 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, "bind", err, host, port);
  }

  receiver_t *r = (receiver_t *)calloc(1, sizeof(receiver_t));
  uint8_t *staging = (uint8_t *)malloc((size_t)SLOTS * SLOT_BYTES);
  if (r == NULL || staging == NULL || pipe(r->wake_pipe) != 0) {
    free(r);
    free(staging);
    close(fd);
    napi_throw_error(env, "ENOMEM", "udp-batch: out of memory or file descriptors");
    return NULL;
  }
  for (int i = 0; i < 2; i++) {
    fcntl(r->wake_pipe[i], F_SETFD, FD_CLOEXEC);
    fcntl(r->wake_pipe[i], F_SETFL, fcntl(r->wake_pipe[i], F_GETFL) | O_NONBLOCK);
  }
  r->env = env;
  r->fd = fd;
  r->staging = staging;
  r->current = -1;
#ifdef __linux__
  for (int i = 0; i < SLOTS; i++) {
    r->iov[i].iov_base = staging + (size_t)i * SLOT_BYTES;
    r->iov[i].iov_len = SLOT_BYTES;
    r->msgs[i].msg_hdr.msg_iov = &r->iov[i];
    r->msgs[i].msg_hdr.msg_iovlen = 1;
  }
#endif

  napi_value object, chunks, name;
  CHECK(env, napi_create_object(env, &object));
  CHECK(env, napi_create_array_with_length(env, CHUNKS, &chunks));
  for (int i = 0; i < CHUNKS; i++) {
    napi_value buffer, view;
    void *memory = NULL;
    CHECK(env, napi_create_arraybuffer(env, CHUNK_BYTES, &memory, &buffer));
    CHECK(env, napi_create_typedarray(env, napi_uint8_array, CHUNK_BYTES, buffer, 0, &view));
    CHECK(env, napi_set_element(env, chunks, i, view));
    r->chunk[i] = (uint8_t *)memory;
    r->free_list[r->free_count++] = i;
  }
  CHECK(env, napi_set_named_property(env, object, "chunks", chunks));
  // The object holds the chunks, so their memory lives as long as the receiver does.
  CHECK(env, napi_create_reference(env, object, 1, &r->resource));
  CHECK(env, napi_create_reference(env, argv[4], 1, &r->callback));
  CHECK(env, napi_create_string_utf8(env, "meshbench:udp-batch", NAPI_AUTO_LENGTH, &name));
  CHECK(env, napi_async_init(env, object, name, &r->async));
  CHECK(env, napi_wrap(env, object, r, on_finalize, NULL, NULL));

  uv_loop_t *loop = NULL;
  CHECK(env, napi_get_uv_event_loop(env, &loop));
  pthread_mutex_init(&r->lock, NULL);
  pthread_cond_init(&r->freed, NULL);
  uv_async_init(loop, &r->wake_js, on_wake_js);
  r->wake_js.data = r;
  // The thread starts with every signal blocked: signals are Node's to handle, on its own
  // thread (libuv's worker threads do the same).
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &previous);
  int started = pthread_create(&r->thread, NULL, reader_main, r);
  pthread_sigmask(SIG_SETMASK, &previous, NULL);
  if (started != 0) {
    napi_throw_error(env, "EAGAIN", "udp-batch: could not start the reading thread");
    return NULL;
  }
  napi_add_env_cleanup_hook(env, on_env_cleanup, r);
  return object;
}

static napi_value js_close(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  void *removed = NULL;
  receiver_t *r = unwrap(env, argv[0]);
  if (r == NULL) return NULL;
  napi_remove_wrap(env, argv[0], &removed);
  napi_remove_env_cleanup_hook(env, on_env_cleanup, r);
  shut(r, 1);
  return NULL;
}

static napi_value js_local_port(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], out;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  receiver_t *r = unwrap(env, argv[0]);
  if (r == NULL) return NULL;
  struct sockaddr_storage address;
  socklen_t length = sizeof address;
  int port = -1;
  if (getsockname(r->fd, (struct sockaddr *)&address, &length) == 0) {
    struct sockaddr *sa = (struct sockaddr *)&address;
    port = sa->sa_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)sa)->sin6_port)
                                     : ntohs(((struct sockaddr_in *)sa)->sin_port);
  }
  CHECK(env, napi_create_int32(env, port, &out));
  return out;
}

static napi_value js_recv_buffer_size(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], out;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  receiver_t *r = unwrap(env, argv[0]);
  if (r == NULL) return NULL;
  int size = 0;
  socklen_t length = sizeof size;
  getsockopt(r->fd, SOL_SOCKET, SO_RCVBUF, &size, &length);
  CHECK(env, napi_create_int32(env, size, &out));
  return out;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"open", NULL, js_open, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, js_close, NULL, NULL, NULL, napi_default, NULL},
      {"localPort", NULL, js_local_port, NULL, NULL, NULL, napi_default, NULL},
      {"recvBufferSize", NULL, js_recv_buffer_size, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_value chunks, chunk_bytes;
  napi_create_int32(env, CHUNKS, &chunks);
  napi_create_int32(env, CHUNK_BYTES, &chunk_bytes);
  napi_set_named_property(env, exports, "CHUNKS", chunks);
  napi_set_named_property(env, exports, "CHUNK_BYTES", chunk_bytes);
  napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
